-- One recorded attempt per (endpoint, event, attempt number) on the normal delivery path. A delivery redone after
-- a crash or a consumer-group rebalance finds its attempt already recorded, and then neither hands it off to the
-- next retry tier again nor counts its terminal failure twice. Replays are recorded apart (replay = true).
CREATE UNIQUE INDEX webhook_delivery_attempts_once
    ON webhook_delivery_attempts (endpoint_id, event_id, attempt)
    WHERE NOT replay;
