-- Per-endpoint delivery rate limits (docs/webhooks.md "Rate limit"). `rate_limit_per_second` is the owner's
-- setting (null: none). Every dispatcher process takes a slot for each attempt to a limited endpoint from
-- `webhook_rate_slots`: the time its attempt may start, one interval after the slot before it, counted by this
-- database's clock, so that all of them together keep the rate whatever their own clocks say; and when its slot
-- comes, it passes the gate: one interval after the last attempt that passed it, so that an attempt that woke up
-- late does not bring the next one closer than the interval. A row apart from the endpoint's, so that neither
-- waits on the attempt writes that lock the endpoint row.
ALTER TABLE webhook_endpoints
    ADD COLUMN rate_limit_per_second integer CHECK (rate_limit_per_second BETWEEN 1 AND 10000);

CREATE TABLE webhook_rate_slots (
    endpoint_id text PRIMARY KEY REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    next_at     timestamptz NOT NULL,
    passed_at   timestamptz
);
