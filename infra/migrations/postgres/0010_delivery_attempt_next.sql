-- The delivery attempts an endpoint's owner reads (docs/webhooks.md "Delivery attempts"): when a failed
-- attempt's retry is due, so the owner sees what happens next. Null after a success and after the last attempt.
ALTER TABLE webhook_delivery_attempts ADD COLUMN next_attempt_at timestamptz;
