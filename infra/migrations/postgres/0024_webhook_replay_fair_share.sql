-- Replays are taken fairly across tenants (docs/webhooks.md "Replays: fair share"): a dispatcher runs a replay for
-- a slice of time, lets go of it, and takes next the replay of the tenant it served longest ago. `taken_at` is a
-- replay's latest take; the index answers "when was this tenant last served" for each candidate.
ALTER TABLE webhook_replays ADD COLUMN taken_at timestamptz;
CREATE INDEX webhook_replays_tenant_taken ON webhook_replays (tenant_id, taken_at DESC NULLS LAST);
-- The replays waiting or running, the candidates of every take and of the tenant's cap.
CREATE INDEX webhook_replays_active ON webhook_replays (tenant_id, created_at) WHERE status IN ('queued', 'running');
