-- Each service that uses Postgres has a role of its own with only what it needs (docs/operations.md "Database
-- roles"): whoever holds the gateway's credentials cannot write trees, keys or checkpoints, and the projector's
-- cannot write keys or checkpoints. Only the schema's owner (ops) migrates, makes keys and writes the rest. Roles
-- belong to the whole server: made once, by whichever database is migrated first (the owner needs CREATEROLE for
-- that, or the roles made beforehand), and granted here in this database. `ops migrate` gives them a login when
-- their passwords are set.
DO $$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['audit_gateway', 'audit_projector', 'audit_dispatcher', 'audit_exporter', 'audit_notary']
  LOOP
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN', r);
      -- Another database's migration made it at the same moment.
      EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
      END;
    END IF;
  END LOOP;
END
$$;

-- Every service checks at its start that the schema is the one it was built for.
GRANT SELECT ON schema_migrations
  TO audit_gateway, audit_projector, audit_dispatcher, audit_exporter, audit_notary;

-- The gateway: keys it checks, its rate limits, the tenants' jobs, endpoints and replays it accepts, and every
-- integrity table read for proofs. Deleting an endpoint cascades as the owner of the rows it removes.
GRANT SELECT ON api_keys TO audit_gateway;
GRANT SELECT, INSERT, UPDATE ON rate_limit_buckets TO audit_gateway;
GRANT SELECT, INSERT ON export_jobs TO audit_gateway;
GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_endpoints TO audit_gateway;
GRANT SELECT ON webhook_delivery_attempts TO audit_gateway;
GRANT SELECT, INSERT ON webhook_replays TO audit_gateway;
GRANT SELECT ON integrity_checkpoints, integrity_keys, integrity_trees, integrity_tiles, integrity_leaf_events,
  integrity_subtrees TO audit_gateway;

-- The projector: the tenants' trees and where it is in the topic, never their signatures or keys.
GRANT SELECT ON audit_topic_generations TO audit_projector;
GRANT SELECT, INSERT, UPDATE (topic) ON integrity_topics TO audit_projector;
GRANT SELECT, INSERT, UPDATE (next_offset) ON integrity_positions TO audit_projector;
GRANT SELECT, INSERT, UPDATE (size, frontier, updated_at, unsigned_since) ON integrity_trees TO audit_projector;
GRANT SELECT, INSERT ON integrity_leaf_events, integrity_subtrees TO audit_projector;
GRANT SELECT, INSERT, UPDATE (times, min_ts, max_ts) ON integrity_tiles TO audit_projector;

-- The notary: signs what the trees hold with the keys ops made; it changes only what says how far it signed.
GRANT SELECT ON integrity_keys TO audit_notary;
GRANT SELECT, UPDATE (signed_size, signed_at, unsigned_since) ON integrity_trees TO audit_notary;
GRANT SELECT, INSERT ON integrity_checkpoints TO audit_notary;

-- The dispatcher: deliveries, their rate slots and replays; of an endpoint, only its delivery state.
GRANT SELECT ON audit_topic_generations TO audit_dispatcher;
GRANT SELECT, UPDATE (last_delivery_at, consecutive_failures, active, disabled_at) ON webhook_endpoints
  TO audit_dispatcher;
GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_delivery_attempts TO audit_dispatcher;
GRANT USAGE ON SEQUENCE webhook_delivery_attempts_id_seq TO audit_dispatcher;
GRANT SELECT, INSERT, UPDATE ON webhook_rate_slots TO audit_dispatcher;
GRANT SELECT, UPDATE ON webhook_replays TO audit_dispatcher;

-- The exporter: runs the jobs the gateway accepted, and names the checkpoint a file is checked against.
GRANT SELECT ON audit_topic_generations TO audit_exporter;
GRANT SELECT, UPDATE ON export_jobs TO audit_exporter;
GRANT SELECT ON integrity_checkpoints TO audit_exporter;
