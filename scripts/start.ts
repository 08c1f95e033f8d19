import { spawn, type ChildProcess } from 'node:child_process';
import {
  DATABASE_SERVICES,
  serviceDatabaseUrl,
  type DatabaseService,
} from '../services/shared/src/migrations/service-roles.js';
import { postgresEnv } from '../services/shared/src/platform/config/components.js';
import { SERVICE_NODE_FLAGS } from '../services/shared/src/platform/node-flags.js';

// Development launcher: every service as its own process, like separate deployments, stopped together.
const SERVICES = [
  {
    name: 'gateway',
    portVar: 'GATEWAY_PORT',
    defaultPort: 8080,
    hostVar: 'GATEWAY_HOST',
    path: '/api/v2/public/audit/events/{event_id}',
  },
  {
    name: 'ingest',
    portVar: 'INGEST_PORT',
    defaultPort: 8081,
    hostVar: 'INGEST_HOST',
    path: '/internal/v1/events',
  },
  {
    name: 'projector',
    portVar: 'PROJECTOR_PORT',
    defaultPort: 8082,
    hostVar: 'PROJECTOR_HOST',
    path: '/readyz',
  },
  {
    name: 'dispatcher',
    portVar: 'DISPATCHER_PORT',
    defaultPort: 8083,
    hostVar: 'DISPATCHER_HOST',
    path: '/readyz',
  },
  {
    name: 'exporter',
    portVar: 'EXPORTER_PORT',
    defaultPort: 8084,
    hostVar: 'EXPORTER_HOST',
    path: '/readyz',
  },
  {
    name: 'notary',
    portVar: 'NOTARY_PORT',
    defaultPort: 8085,
    hostVar: 'NOTARY_HOST',
    path: '/readyz',
  },
  {
    name: 'custodian',
    portVar: 'CUSTODIAN_PORT',
    defaultPort: 8086,
    hostVar: 'CUSTODIAN_HOST',
    path: '/readyz',
  },
] as const;

// Each child gets its own process group: Ctrl-C reaches only this launcher, which then stops every service once,
// with SIGTERM (a service treats a second signal as "exit now").
function run(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [...SERVICE_NODE_FLAGS, '--import', 'tsx', ...args], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
}

async function waitReady(url: string, child: ChildProcess, name: string) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${name} exited with code ${child.exitCode} during start-up`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${name} did not become ready at ${url}`);
}

// start.sh exported the development secrets (.data/secrets.env) unless the environment set them.
const env = process.env;
const migrate = run(['services/ops/src/main.ts', 'migrate'], env);
const migrated = await new Promise<number | null>((resolve) => migrate.once('exit', resolve));
if (migrated !== 0) {
  console.error('migrations failed; not starting the services');
  process.exit(1);
}
// The first signing key of the checkpoints, when there is none (docs/integrity.md "Signing keys").
const keyed = run(['services/ops/src/main.ts', 'integrity', 'keys', 'create', '--if-none'], env);
if ((await new Promise<number | null>((resolve) => keyed.once('exit', resolve))) !== 0) {
  console.error('the signing key of the checkpoints could not be made; not starting the services');
  process.exit(1);
}

// The gateway and the exporter read ClickHouse with a read-only user when one is named (the local stack's is
// audit_reader).
const clickhouseEnv = (name: string): NodeJS.ProcessEnv =>
  (name === 'gateway' || name === 'exporter') && env.GATEWAY_CLICKHOUSE_USER
    ? {
        ...env,
        CLICKHOUSE_USER: env.GATEWAY_CLICKHOUSE_USER,
        CLICKHOUSE_PASSWORD: env.GATEWAY_CLICKHOUSE_PASSWORD ?? '',
      }
    : env;

// Each service logs in to Postgres as its own role, which `ops migrate` above gave the password of the
// development secrets (docs/operations.md "Database roles"); DATABASE_URL is the schema's owner, for ops.
const ownerUrl = postgresEnv.DATABASE_URL.parse(env.DATABASE_URL);
const isDatabaseService = (name: string): name is DatabaseService =>
  (DATABASE_SERVICES as readonly string[]).includes(name);
const serviceEnv = (name: string): NodeJS.ProcessEnv => {
  if (!isDatabaseService(name)) return clickhouseEnv(name);
  const password = env[`${name.toUpperCase()}_DATABASE_PASSWORD`];
  if (!password) throw new Error(`${name.toUpperCase()}_DATABASE_PASSWORD is not set (.data/secrets.env)`);
  return { ...clickhouseEnv(name), DATABASE_URL: serviceDatabaseUrl(ownerUrl, name, password) };
};
const children = SERVICES.map((s) => ({
  ...s,
  child: run([`services/${s.name}/src/main.ts`], serviceEnv(s.name)),
}));
let stopping = false;

async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  process.exit(code);
}

for (const { name, child } of children) {
  child.once('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} stopped unexpectedly (code ${code}, signal ${signal}); stopping the others`);
      void stopAll(1);
    }
  });
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

// The gateway's metrics have a listener of their own, off the public port.
const gatewayMetrics = `${env.GATEWAY_METRICS_HOST ?? '127.0.0.1'}:${env.GATEWAY_METRICS_PORT ?? '9080'}`;

try {
  const lines: string[] = [];
  for (const s of children) {
    const host = env[s.hostVar] ?? '127.0.0.1';
    const port = env[s.portVar] ?? String(s.defaultPort);
    await waitReady(`http://${host}:${port}/readyz`, s.child, s.name);
    lines.push(`  ${s.name.padEnd(10)} http://${host}:${port}${s.path}`);
  }
  console.log(
    [
      '',
      'Audit trail service is up:',
      ...lines,
      '  ingest token: INGEST_TOKEN (from your environment or .data/secrets.env)',
      '  health: GET /healthz and /readyz on each port. Ctrl-C stops the services; `npm run stack -- down` the components.',
      `  metrics: GET /metrics on the ingest, projector, dispatcher, exporter, notary and custodian ports; the gateway's at http://${gatewayMetrics}/metrics`,
      '',
    ].join('\n'),
  );
} catch (err) {
  console.error((err as Error).message);
  await stopAll(1);
}
