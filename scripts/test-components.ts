// Holds Kafka, ClickHouse and Postgres in containers for one `npm test` run on the containers path (docs/testing.md
// "Components"): starts them, writes the variables that point the tests at them to the file given, and removes
// them on SIGTERM or SIGINT, or when the script that started it has gone. scripts/test.sh and
// scripts/test-containers.sh run it in the background.
// Usage: tsx scripts/test-components.ts <env file>
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  containerImages,
  keepClickHouseLog,
  startComponentContainers,
} from '../test/support/container-stack.js';

// Beside the run's results (scripts/test.sh, scripts/test-containers.sh), whether its tests passed or not.
const CLICKHOUSE_LOG = fileURLToPath(
  new URL('../.data/test-results/clickhouse-server-log.tar', import.meta.url),
);

const [envFile] = process.argv.slice(2);
if (!envFile) throw new Error('usage: test-components.ts <env file>');

const images = containerImages(process.env);
console.log(`starting ${Object.values(images).join(', ')}`);
const stack = await startComponentContainers(images);
const lines = Object.entries({ ...stack.env, AUDIT_TEST_CONTAINERS: JSON.stringify(stack.ids) }).map(
  ([name, value]) => `export ${name}='${value}'`,
);
// Written whole, then renamed: the waiting script never reads half a file.
writeFileSync(`${envFile}.tmp`, `${lines.join('\n')}\n`);
renameSync(`${envFile}.tmp`, envFile);
console.log(`ready: ${JSON.stringify(stack.env)}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  rmSync(envFile, { force: true });
  // The server log goes with its container; a log not kept must not keep the containers.
  await keepClickHouseLog(stack.ids.clickhouse, CLICKHOUSE_LOG).then(
    () => console.log(`ClickHouse's server log kept in ${CLICKHOUSE_LOG}`),
    (err: unknown) => console.error(`ClickHouse's server log not kept: ${String(err)}`),
  );
  await stack.stop();
  console.log('removed');
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
// Keeps the process alive until a signal comes, or until the script that started it is gone without sending one
// (killed alone): an orphaned holder would keep its containers for good.
const parent = process.ppid;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};
setInterval(() => {
  if (parent > 1 && !alive(parent)) void stop();
}, 1_000);
