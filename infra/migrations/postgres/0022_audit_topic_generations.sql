-- The audit topic's generations after the first (docs/topic-growth.md): written by `ops topics grow`, read by every
-- consumer of the topic. `previous_ends` holds the end offset of each partition of the generation before, recorded
-- once it was sealed; a consumer group reads this generation only after committing the one before up to them.
-- `base` is the first generation's topic name, so that deployments sharing a database (TOPIC_PREFIX) stay apart.
CREATE TABLE audit_topic_generations (
    base          text        NOT NULL,
    generation    int         NOT NULL CHECK (generation > 1),
    topic         text        NOT NULL UNIQUE,
    partitions    int         NOT NULL CHECK (partitions > 0),
    created_at    timestamptz NOT NULL DEFAULT now(),
    previous_ends bigint[],
    sealed_at     timestamptz,
    PRIMARY KEY (base, generation)
);
