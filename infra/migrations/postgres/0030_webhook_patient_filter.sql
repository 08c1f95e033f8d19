-- The patients an endpoint is sent events of (docs/webhooks.md "Matching"): an event is delivered only when it
-- names one of them as its `patient_id`; empty, the default, means every event. The gateway and the dispatcher
-- read it under their grants on the whole table.
ALTER TABLE webhook_endpoints
    ADD COLUMN patient_filter text[] NOT NULL DEFAULT '{}' CHECK (cardinality(patient_filter) <= 50);
