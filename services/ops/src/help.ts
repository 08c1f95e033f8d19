const COMMON = `Every command prints JSON with --json and a short human text otherwise; --help after any command explains it.
Exit codes: 0 done, 1 failed (status: something is down), 2 wrong usage.`;

export const HELP = {
  main: `Usage: npm run --silent ops -- <command> [options] [--json]

Commands:
  migrate                  apply ClickHouse and Postgres migrations, create missing topics
  keys create|list|revoke|rotate
                           API keys (ops keys --help)
  status                   every component and service: up, not ready or down, with its address
  lag                      per consumer group and partition: committed offset, end, lag, oldest unprocessed age
  dlq list|show|redrive    the projector's and the dispatcher's dead letters (ops dlq --help)
  backfill filter-index    fill the filter index of a projection that held events before it existed
  replay projection        rebuild the ClickHouse projection from the audit topic, reads uninterrupted
  replay webhooks          re-drive a window of a tenant's events to one endpoint (ops replay --help)
  exports list|show|cancel export jobs of every tenant: state, progress, cancellation (ops exports --help)
  integrity keys create|list|rotate
                           the keys that sign the tenants' tree checkpoints (ops integrity --help)
  integrity verify --tenant T
                           a tenant's stored events against its tree, and its checkpoints against both
  topics list|grow|retention
                           the audit topic's generations, its growth, the topics' retention (ops topics --help)
  tenants show|set-name    the name a tenant's reports are headed with (ops tenants --help)
  reports patient-access --tenant T --patient P
                           who saw a patient's records: the API's report, for staff (ops reports --help)
  retention show|set|purge|status
                           how long a tenant's trail is kept: its retention policy, and the purge of what is
                           past its maximum (ops retention --help)
  holds list|create|release
                           a tenant's legal holds: events kept whatever the policy (ops holds --help)
  help                     this text

${COMMON}
`,
  migrate: `Usage: ops migrate [--json]

Applies the ClickHouse and Postgres migrations not applied yet and creates missing Kafka topics. Re-runnable;
every service does the same at start.
`,
  keys: `Usage: ops keys <create|list|revoke|rotate> [options] [--json]

  keys create --tenant T --scopes a,b [--ip-allow CIDR,...] [--label L]
                           mint a key; the full key is printed once
  keys list [--tenant T]   keys without their secrets
  keys revoke --prefix P   revoke a key (401 for it within seconds)
  keys rotate --prefix P   a new key with the same tenant, scopes and allow-list; the old one stays live until revoked

Scopes: audit:read, audit:export, webhooks:write. Every change writes its audit event.
`,
  status: `Usage: ops status [--json]

Probes Postgres, ClickHouse and Kafka, and each service's /readyz (addresses from GATEWAY_HOST/PORT,
INGEST_HOST/PORT, PROJECTOR_HOST/PORT, DISPATCHER_HOST/PORT). A service is "up" when ready, "not_ready" with the
failing checks named, "down" when it does not answer. Exit code 1 when anything is not up.
`,
  lag: `Usage: ops lag [--json]

For every consumer group with offsets on this deployment's topics (the projector, the dispatcher and its retry
tiers): per partition the committed offset, the end offset, the lag, and the age of the oldest record not yet
processed. On a retry tier the lag is the number of deliveries waiting for their retry.
`,
  dlq: `Usage: ops dlq <list|show|redrive> --queue projector|webhooks [options] [--json]

  dlq list [--all] [--tenant T] [--endpoint ID] [--limit N]
           dead letters still pending (--all: also those redriven), with origin and error; default limit 100
  dlq show --offset N [--partition P]
           one dead letter whole: headers, key, value (decoded when possible)
  dlq redrive [--tenant T] [--endpoint ID] [--offset N [--partition P]] [--to ID] [--limit N] [--dry-run]
           sends pending dead letters back through the normal path and notes them as redriven:
           projector records to the audit topic (stored once the cause is fixed; idempotent on the event id),
           deliveries to the first retry tier as a new run of attempts recorded as replays.
           An inactive endpoint is never re-enabled: --endpoint OLD --to NEW sends OLD's deliveries to its
           replacement NEW (same tenant, active).
`,
  backfill: `Usage: ops backfill filter-index [--json]

Fills the live projection generation's filter index and summary (docs/architecture.md, "Read path") from its
events table, one 30-day partition at a time, with progress on stderr, then marks the index complete: from then
on filtered reads use it. Needed once after upgrading a projection that already held events; a new or rebuilt
projection (ops replay projection) has a complete index from its start. Re-runnable: a run that stopped resumes
with the partitions not finished. Writes go on meanwhile.
`,
  replay: `Usage: ops replay projection [--since TIME] [--drop-old-after SECONDS] [--json]
       ops replay projection --abort
       ops replay webhooks --tenant T --endpoint ID --since TIME [--until TIME] [--dry-run] [--json]

replay projection: rebuilds the projection into a new generation of tables while reads continue from the live
one: the running projectors replay the audit topic into it (from the start, or, with --since, copying what was
ingested before that time from the live generation), new writes are held for a moment while it catches up, then
reads and writes switch to it at once. The old generation is dropped --drop-old-after seconds later (default 30).
Reports the generation, records replayed and durations. --abort gives up a replay whose command died.

replay webhooks:
re-drives the tenant's events ingested in [--since, --until) (RFC 3339 times; --until defaults to now) that match
the endpoint's filters (actions and patients), to that endpoint, through the normal delivery path: same event ids
and payload bytes, signed at attempt time, retried on the normal schedule, attempts recorded as replays. The
events are read from the audit topic. The endpoint must be the tenant's and active.
`,
  exports: `Usage: ops exports <list|show|cancel> [options] [--json]

  exports list [--tenant T] [--status S] [--limit N]
                           export jobs, newest first (default limit 100); S: queued, running, succeeded,
                           failed or expired
  exports show --id ID [--wait]
                           one job; --wait follows it until it ends, its progress on stderr
  exports cancel --id ID   ends a queued or running job as failed (error "cancelled"); its exporter stops and
                           drops the file. Writes admin.export.cancel into the tenant's trail.

Export jobs: docs/exports.md.
`,
  integrity: `Usage: ops integrity keys <create|list|rotate> [options] [--json]
       ops integrity verify --tenant T [--keys FILE] [--json]

  integrity verify --tenant T [--keys FILE]
                           every stored row of the tenant against its tree's leaves (naming each altered,
                           missing or forged event; counting those its retention purges removed as purged),
                           then every checkpoint against the leaves and the keys
                           (naming each with a bad signature, another origin, or a root that forks); exit 1
                           when anything is found. The keys are those of FILE (GET /audit/integrity/keys's
                           answer, or verifier keys one per line), else INTEGRITY_KEY_DIR's; a stored key
                           neither holds is named. With neither, the database's own, with a warning

  integrity keys create [--name N] [--if-none]
                           makes the first signing key and makes it active; --if-none does nothing when a key
                           is active already
  integrity keys rotate [--name N]
                           a new active key; the one it replaces is retired (its checkpoints stay verifiable)
  integrity keys list      every key, its verifier key, state, and whether its private half is in this
                           INTEGRITY_KEY_DIR

A new key's private half is written to INTEGRITY_KEY_DIR (default .data/integrity-keys), readable by its owner
only: run the command where the notary runs (or copy the file to the notary's key directory). Its name defaults to
<INTEGRITY_LOG_NAME>-<date>-<4 hex>. Each change writes admin.integrity.key.create or .rotate into the trail of
every tenant with a tree. Checkpoints: docs/integrity.md.
`,
  topics: `Usage: ops topics list [--json]
       ops topics grow --partitions N [--json]
       ops topics retention [--days N | --forever] [--json]

  topics list              the audit topic's generations: topic, partitions, whether it takes writes, and the
                           end offsets it was sealed at
  topics grow --partitions N
                           a new generation of the audit topic with N partitions (more than the newest has):
                           the newest is sealed (the broker refuses writes to it), the new one opens, and every
                           consumer reads it once it has read the old one up to the seal; producers and
                           consumers follow without a restart
  topics retention         each topic's retention; with --days N (7 to 36500) or --forever, sets that of the
                           audit topic (every generation) and the dead-letter topics. Kafka then deletes records
                           older than N days: a replay reaches back only that far, and a consumer stopped longer
                           never reads what was deleted. Refused while a consumer group has such records unread

A growth takes seconds on one broker and about 1.5 x replica.lag.time.max.ms more with replicas. Run it again
after it stopped midway: it finishes the growth it began. See docs/topic-growth.md and, for retention,
docs/operations.md "Topic retention".
`,
  tenants: `Usage: ops tenants show --tenant T [--json]
       ops tenants set-name --tenant T --name N [--json]

  tenants show --tenant T  the tenant's name, or that it has none (its reports are then headed with its id)
  tenants set-name --tenant T --name N
                           names the tenant: 1 to 200 characters on one line, no space at either end. Writes
                           admin.tenant.update (the name and the one it replaced) into the tenant's trail; the name
                           changes only once Kafka has that event

The name heads the tenant's patient access reports, which go to patients (docs/reports.md "Tenant names").
`,
  reports: `Usage: ops reports patient-access --tenant T --patient P [options] [--json]

  --since TIME, --until TIME
                           the window, RFC 3339 (until exclusive; defaults: now, and six years before until)
  --mode access|accounting every event naming the patient (default), or only the disclosures the patient is owed
  --sort COLUMN            timestamp (default), user_id, user_role, action, resource_type, resource_id,
                           purpose_of_use, justification, disclosure, recipient, success, accounting_status,
                           exclusion or event_id; ties in time order, then by event id
  --order asc|desc         default desc
  --format json|csv|pdf|fhir
                           default json: the whole report (heading, counts, rows); csv: the rows; pdf: the letter
                           to send the patient; fhir: an R4 Bundle of AuditEvents
  --out FILE               writes the report to FILE (a new file, readable by its owner only) and prints a
                           summary: path, rows, bytes, report id. Without it json, csv and fhir go to stdout;
                           pdf needs it

The report is the API's (GET /audit/reports/patient-access, docs/reports.md), made for staff answering a
patient's request. Each read writes audit.report.patient_access into the tenant's trail, naming the patient and
the operator, before the report is given: when Kafka cannot take it, the command fails and nothing is written.
`,
  retention: `Usage: ops retention show --tenant T [--json]
       ops retention set --tenant T --min-days N (--max-days N | --no-max) [--json]
       ops retention purge --tenant T [--dry-run] [--json]
       ops retention status --tenant T [--json]

  retention show --tenant T
                           the policy in force: its bounds, its version, who set it and when; or that it is the
                           default, never set (kept at least 2192 days, six years; no maximum)
  retention set --tenant T --min-days N (--max-days N | --no-max)
                           sets both bounds as the policy's next version: whole days from 1 to 36500, the maximum
                           not below the minimum (--no-max: kept for ever). Prints the policy and the one it
                           replaced. Writes admin.retention.update (both, and the version) into the tenant's trail;
                           the policy changes only once Kafka has that event
  retention purge --tenant T [--dry-run]
                           removes the tenant's events older than its maximum (from the hour before it) that no
                           hold in force covers, from every generation's events, filter index and summary, and
                           waits until ClickHouse has rewritten its parts; removes the export files whose window
                           begins before the horizon (their jobs expire). Writes admin.retention.purge first; the
                           tenant's policy and holds cannot change while it runs. Prints the horizon, the events
                           removed and those the holds kept. --dry-run: counts them, changes nothing. Re-runnable;
                           a policy without a maximum purges nothing. Needs the exporter's EXPORT_STORAGE settings
  retention status --tenant T
                           the tenant's horizon (events before it were purged unless held) and its last purges

Purges run on a single ClickHouse server only yet; the audit topic is not purged yet (docs/retention.md).
`,
  holds: `Usage: ops holds list --tenant T [--status active|released|all] [--json]
       ops holds create --tenant T --reason R [scope options] [--json]
       ops holds release --tenant T --id ID --reason R [--json]

  holds list --tenant T [--status S]
                           every hold of the tenant, newest first: those in force (default), those released (with
                           who released them, when and why), or all
  holds create --tenant T --reason R [--user-id U] [--resource-id R] [--patient-id P] [--since TIME] [--until TIME]
                           puts a hold on the tenant's events that match every scope option given (exact ids as
                           the list's filters take them; RFC 3339 times, --until exclusive); none: every event.
                           The reason, 1 to 500 characters, names the matter. At most 100 holds in force
  holds release --tenant T --id ID --reason R
                           ends a hold in force; one released already is left as it was (exit 0, nothing recorded)

Each change writes admin.legal_hold.create or admin.legal_hold.release (the reasons and the scope) into the
tenant's trail and is made only once Kafka has that event. A hold will keep its events from every purge and erasure;
none is built yet (docs/retention.md).
`,
} as const;

export type HelpTopic = keyof typeof HELP;
