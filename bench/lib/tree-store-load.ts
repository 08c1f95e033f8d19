// A tenant's tree store written straight into Postgres, for bench:integrity's proofs on a tree of millions of
// leaves: pushing that many events through Kafka and the notary would take hours on two cores. The leaf hashes are
// random (a proof does not care what the leaves hash), the subtrees are those the notary stores (appendLeaves,
// then the levels planAppend keeps), and the tree row and a signed checkpoint are what the notary's append and
// checkpoint loop would leave.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import {
  appendLeaves,
  EMPTY_FRONTIER,
  frontierRoot,
  integrityKeysRepository,
  rawPublicKey,
  signCheckpoint,
  verifierKeyOf,
  type CheckpointKey,
  STORED_LEVEL_STEP,
  type Frontier,
} from '@audit/shared';
import { originOf } from '../../services/notary/src/domain/checkpoint-of.js';

/** Leaves per statement: a multiple of 256, so each statement completes whole subtrees of the levels stored. */
const CHUNK = 65_536;
const WRITERS = 2;

export interface LoadedTree {
  size: number;
  root: Uint8Array;
  seconds: number;
}

/** Leaves `from` to `from + count`: random hashes, as one bytea the statement cuts into 32-byte pieces. */
function leafChunk(from: number, count: number) {
  const bytes = randomBytes(32 * count);
  const hashes = Array.from({ length: count }, (_, i) => bytes.subarray(32 * i, 32 * i + 32));
  return { from, bytes, hashes };
}

/**
 * Appends `size` leaves to the tenant's (empty) tree: leaves with random event ids (made by Postgres) and event
 * times one millisecond apart from `firstTs`, every complete subtree of every STORED_LEVEL_STEP-th level, the tree
 * row, and a checkpoint of the whole tree signed with `key` (made the active key). One statement writes while the
 * next chunk is made.
 */
export async function loadTreeStore(
  pool: pg.Pool,
  opts: {
    tenant: string;
    size: number;
    firstTs: number;
    key: CheckpointKey;
    logName: string;
    progress?: (done: number) => void;
  },
): Promise<LoadedTree> {
  const started = performance.now();
  let frontier: Frontier = EMPTY_FRONTIER;
  // Two statements in flight: Postgres maintains the three indexes on one core each.
  const writing: Promise<unknown>[] = [];
  // Leaves and subtrees are keyed by the tree's number (migration 0019): the tree row comes first.
  const { rows } = await pool.query<{ tree_id: string }>(
    'INSERT INTO integrity_trees (tenant_id) VALUES ($1) RETURNING tree_id',
    [opts.tenant],
  );
  const treeId = rows[0]!.tree_id;
  for (let from = 0; from < opts.size; from += CHUNK) {
    const chunk = leafChunk(from, Math.min(CHUNK, opts.size - from));
    const appended = appendLeaves(frontier, chunk.hashes);
    frontier = appended.frontier;
    const subtrees = appended.completed.filter((s) => s.level > 0 && s.level % STORED_LEVEL_STEP === 0);
    if (writing.length >= WRITERS) await writing.shift();
    opts.progress?.(from);
    writing.push(
      Promise.all([
        pool.query(
          `INSERT INTO integrity_leaves (tree_id, leaf_index, event_id, leaf_hash, ts)
         SELECT $1, $2::bigint + i, gen_random_uuid(), substring($3::bytea FROM 32 * i + 1 FOR 32), $4::bigint + $2 + i
         FROM generate_series(0, $5::int - 1) AS i`,
          [treeId, chunk.from, chunk.bytes, opts.firstTs, chunk.hashes.length],
        ),
        subtrees.length === 0
          ? null
          : pool.query(
              `INSERT INTO integrity_subtrees (tree_id, level, node_index, hash)
             SELECT $1, * FROM unnest($2::smallint[], $3::bigint[], $4::bytea[])`,
              [
                treeId,
                subtrees.map((s) => s.level),
                subtrees.map((s) => s.index),
                subtrees.map((s) => Buffer.from(s.hash)),
              ],
            ),
      ]),
    );
  }
  await Promise.all(writing);
  const root = frontierRoot(frontier);
  const time = Date.now();
  await integrityKeysRepository.insertActive(pool, {
    name: opts.key.name,
    publicKey: rawPublicKey(opts.key.privateKey),
    verifierKey: verifierKeyOf(opts.key),
    createdBy: 'bench:integrity',
  });
  await pool.query(
    `UPDATE integrity_trees SET size = $2, frontier = $3, signed_size = $2, signed_at = $4 WHERE tenant_id = $1`,
    [opts.tenant, opts.size, Buffer.concat(frontier.hashes), time],
  );
  const note = signCheckpoint(
    { origin: originOf(opts.logName, opts.tenant), size: opts.size, root, time },
    opts.key,
  );
  await pool.query(
    `INSERT INTO integrity_checkpoints (tenant_id, tree_size, root_hash, made_at, key_name, note)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [opts.tenant, opts.size, Buffer.from(root), time, opts.key.name, note],
  );
  return { size: opts.size, root, seconds: (performance.now() - started) / 1000 };
}
