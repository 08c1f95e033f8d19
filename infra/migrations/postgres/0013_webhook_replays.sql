-- Replays an endpoint's owner asked for (docs/webhooks.md "Replays"): the window of events to send again, and how
-- far the dispatcher that runs it got. A dispatcher holds a running replay by its lease (`lease_token` fences
-- every update: one that lost the lease changes nothing); one whose lease ran out (its dispatcher died) is taken
-- over and goes on from `next_offset`, the first record of the tenant's partition not handed on yet. Deleted
-- with the endpoint.
CREATE TABLE webhook_replays (
    id                uuid PRIMARY KEY,
    endpoint_id       text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    tenant_id         text NOT NULL,
    since_ms          bigint NOT NULL,
    until_ms          bigint NOT NULL CHECK (until_ms > since_ms),
    requested_by      text NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    status            text NOT NULL DEFAULT 'queued'
                      CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
    lease_token       uuid,
    lease_until       timestamptz,
    started_at        timestamptz,
    finished_at       timestamptz,
    records_read      bigint NOT NULL DEFAULT 0,
    deliveries_queued bigint NOT NULL DEFAULT 0,
    next_offset       bigint,
    end_offset        bigint,
    error             text
);

-- One replay in flight per endpoint; the owner reads the newest.
CREATE UNIQUE INDEX webhook_replays_one_active ON webhook_replays (endpoint_id) WHERE status IN ('queued', 'running');
CREATE INDEX webhook_replays_endpoint ON webhook_replays (endpoint_id, created_at DESC);
