/**
 * Node flags every service process runs with: `npm start` (scripts/start.ts), the tests' and benchmarks'
 * processes (test/support/service-process.ts), and docker-compose.yml and infra/cluster/lib/service.sh, which
 * repeat them.
 *
 * A larger young generation (32 MiB semi-spaces, Node's default is 16): ingest parses and validates requests of
 * a thousand events and the projector decodes batches of thousands, and most of what they allocate dies young.
 * Measured with bench:ingest (docs/benchmarks/journal.md): about 2 µs less CPU per event in each of the two.
 *
 * No TimeoutNegativeWarning: kafkajs 2.2.4, its last release, arms a timer at a negative delay whenever its
 * request queue is empty, which Node has always run after 1 ms and Node 24 also reports at every start. The
 * behaviour is unchanged; only the noise goes (docs/operations.md "Node flags").
 */
export const SERVICE_NODE_FLAGS = [
  '--max-semi-space-size=32',
  '--disable-warning=TimeoutNegativeWarning',
] as const;
