// The least work a notary needs with this stack, run as a process of its own for bench:integrity to set beside the
// notary in the same pipeline: read the audit topic with kafkajs (the notary's fetch settings), decode each record
// (avsc), append it to its tenant's tree (leaf hash and frontier: planAppend) and, with `postgres`, store the least
// a tree needs in one transaction per batch before committing the offsets: a row per leaf keyed by the event's id
// (what makes an event a leaf once, and finds it for a proof), written with COPY, and the batch's leaf hashes in
// one row per tenant (a tiled store). Left out is what the notary adds for its other guarantees: the stored-event
// rules (zod), the trees' rows and locks, the index by time (window proofs), stored subtrees, checkpoints, metrics.
// Prints {"leaves": n} after each batch. Started by notary-floor.ts.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import {
  auditEventCodec,
  EMPTY_FRONTIER,
  inTransaction,
  type AuditEventRecord,
  type Frontier,
} from '@audit/shared';
import { planAppend, type NewLeaf } from '../../services/notary/src/domain/append-plan.js';
import { FETCH_PARTITION_BYTES, loadConfig } from '../../services/notary/src/config.js';

export interface FloorNotaryOptions {
  brokers: string;
  topic: string;
  groupId: string;
  databaseUrl: string;
  postgres: boolean;
  /** Tree numbers are this plus 1, 2, …: runs in one database must not share one. */
  treeBase: number;
}

// Made by the first floor run in the bench's database, which the bench drops at its end.
const TABLES = `
  CREATE TABLE IF NOT EXISTS floor_leaves (tree_id bigint, event_id uuid, leaf_index bigint, PRIMARY KEY (tree_id, event_id));
  CREATE TABLE IF NOT EXISTS floor_tiles (tree_id bigint, first_index bigint, hashes bytea, PRIMARY KEY (tree_id, first_index))`;

async function store(db: pg.PoolClient, planned: readonly NewLeaf[], treeOf: (tenant: string) => number) {
  let text = '';
  for (const l of planned) text += `${treeOf(l.tenant_id)}\t${l.event_id}\t${l.leaf_index}\n`;
  await pipeline(
    Readable.from([text]),
    db.query(copyFrom('COPY floor_leaves (tree_id, event_id, leaf_index) FROM STDIN')),
  );
  const byTenant = new Map<string, NewLeaf[]>();
  for (const l of planned) {
    const tile = byTenant.get(l.tenant_id);
    if (tile) tile.push(l);
    else byTenant.set(l.tenant_id, [l]);
  }
  const tiles = [...byTenant.values()];
  await db.query('INSERT INTO floor_tiles SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bytea[])', [
    tiles.map((t) => treeOf(t[0]!.tenant_id)),
    tiles.map((t) => t[0]!.leaf_index),
    tiles.map((t) => Buffer.concat(t.map((l) => l.leaf_hash))),
  ]);
}

async function main(opts: FloorNotaryOptions) {
  const fetch = loadConfig({}).fetch;
  const codec = auditEventCodec();
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 2 });
  if (opts.postgres) await pool.query(TABLES);
  const trees = new Map<string, Frontier>();
  const treeIds = new Map<string, number>();
  const treeOf = (tenant: string) =>
    treeIds.get(tenant) ?? treeIds.set(tenant, opts.treeBase + treeIds.size + 1).get(tenant)!;
  let leaves = 0;
  const kafka = new Kafka({
    clientId: 'notary-floor',
    brokers: opts.brokers.split(','),
    logLevel: logLevel.NOTHING,
  });
  const consumer = kafka.consumer({
    groupId: opts.groupId,
    maxBytesPerPartition: FETCH_PARTITION_BYTES,
    maxBytes: 32 * 1024 * 1024,
    minBytes: fetch.minBytes,
    maxWaitTimeInMs: fetch.maxWaitMs,
  });
  consumer.on(consumer.events.GROUP_JOIN, () => console.log(JSON.stringify({ joined: true })));
  process.once('SIGTERM', () => void consumer.disconnect().then(() => pool.end()));
  await consumer.subscribe({ topic: opts.topic });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      const events = batch.messages.map((m) => codec.decode(m.value!) as AuditEventRecord);
      for (const e of events) if (!trees.has(e.tenant_id)) trees.set(e.tenant_id, EMPTY_FRONTIER);
      const plan = planAppend(events, trees, new Set());
      if (opts.postgres) await inTransaction(pool, (db) => store(db, plan.leaves, treeOf));
      for (const [tenant, frontier] of plan.trees) trees.set(tenant, frontier);
      const next = (BigInt(batch.lastOffset()) + 1n).toString();
      await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
      leaves += plan.leaves.length;
      console.log(JSON.stringify({ leaves }));
    },
  });
}

await main(JSON.parse(process.argv[2]!) as FloorNotaryOptions);
