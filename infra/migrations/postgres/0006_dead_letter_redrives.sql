-- Dead letters an operator sent back through the normal path (`ops dlq redrive`), by their place in the
-- dead-letter topic: a record is redriven once, and `dlq list` shows what is still pending. A redriven record
-- that fails again comes back as a new dead letter, with a place of its own.
CREATE TABLE dead_letter_redrives (
    topic         text NOT NULL,
    partition     integer NOT NULL,
    record_offset bigint NOT NULL,
    redriven_at   timestamptz NOT NULL DEFAULT now(),
    redriven_by   text NOT NULL,
    -- Where it went: the topic, and for a delivery the endpoint.
    sent_to       text NOT NULL,
    endpoint_id   text,
    PRIMARY KEY (topic, partition, record_offset)
);
