// npm run bench:image-start — the service image's start-up to ready, measured on docker-compose.yml under Podman
// with the images built here (infra/containers): the gateway container stopped and started again, timed until its
// /readyz answers 200 through the published port. The floor, in the same run: a container of the same image that
// only starts Node and exits (`node -e 0`), the least any start of this image costs here.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { composeProject, ownedProjectName } from '../test/support/compose.js';
import { unusedPort } from '../test/support/tcp-forwarder.js';
import { benchResults } from './lib/results.js';
import { fmt, summarize } from './lib/stats.js';

const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_IMAGE_START_ROUNDS ?? 5);
const IMAGE = process.env.AUDIT_IMAGE ?? 'localhost/audit-trail:dev';
const hex = (n: number) => randomBytes(n).toString('hex');
const project = ownedProjectName('audit-bench');
const gatewayPort = await unusedPort();
const compose = composeProject(project, {
  INGEST_TOKEN: hex(24),
  API_KEY_PEPPER: hex(24),
  CURSOR_SECRET: hex(24),
  WEBHOOK_SECRET_KEY: hex(32),
  GATEWAY_PUBLISH_PORT: String(gatewayPort),
  INGEST_PUBLISH_PORT: String(await unusedPort()),
});

async function ready(): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${gatewayPort}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

async function timeToReady(container: string): Promise<number> {
  await run('podman', ['stop', container]);
  const started = performance.now();
  await run('podman', ['start', container]);
  while (!(await ready())) await new Promise((r) => setTimeout(r, 20));
  return performance.now() - started;
}

async function floor(image: string): Promise<number> {
  const started = performance.now();
  await run('podman', ['run', '--rm', image, 'node', '-e', '0']);
  return performance.now() - started;
}

const results = benchResults('image-start');
console.log(`compose up (project ${project})...`);
await compose.up();
try {
  const gateway = `${project}_gateway_1`;
  const starts: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    starts.push(await timeToReady(gateway));
    floors.push(await floor(IMAGE));
  }
  const s = summarize(starts);
  const f = summarize(floors);
  results.row(
    'gateway container start → /readyz 200',
    `median ${fmt(s.p50)} ms, max ${fmt(s.max)} ms (${ROUNDS} runs)`,
  );
  results.row(
    'floor, a container of the image running node -e 0',
    `median ${fmt(f.p50)} ms, max ${fmt(f.max)} ms`,
  );
} finally {
  await compose.down();
}
results.save([`image ${IMAGE}, docker-compose.yml under Podman`]);
