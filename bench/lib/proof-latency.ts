// bench:integrity's proof part: inclusion proofs of random leaves of one tenant's tree, through the store call
// and through the gateway, each sample beside the least a proof can cost (one leaf's hash read from its tile by the
// primary key) and the least the gateway adds (an authenticated GET of the signing keys), interleaved so that any
// disturbance hits them alike. Every proof is checked against the checkpoint's root; the gateway finds each leaf by
// its event id (integrity_leaf_events), read here from the leaf's tile.
import { randomInt } from 'node:crypto';
import type pg from 'pg';
import { inclusionRanges, integrityStore, STORED_LEVEL_STEP, subtreesOf } from '@audit/shared/integrity';
import { verifyInclusion } from '@audit-trail/integrity-verifier';
import type { HttpClient } from './http-timing.js';
import { summarize } from './stats.js';

const API = '/api/v2/public';

export interface ProofCase {
  pool: pg.Pool;
  http: HttpClient;
  key: string;
  tenant: string;
  size: number;
  root: Uint8Array;
  samples: number;
  warmup: number;
}

/** Leaf hashes and subtree hashes a proof reads: each subtree is made from the stored hashes of the band below. */
const hashesRead = (index: number, size: number) =>
  inclusionRanges(index, size)
    .flatMap((r) => subtreesOf(r))
    .reduce((n, s) => n + 2 ** (s.level % STORED_LEVEL_STEP), 0);

export async function proofLatency(c: ProofCase) {
  const wanted = new Set<number>();
  while (wanted.size < c.samples + c.warmup) wanted.add(randomInt(0, c.size));
  const { rows: tree } = await c.pool.query<{ tree_id: string }>(
    'SELECT tree_id FROM integrity_trees WHERE tenant_id = $1',
    [c.tenant],
  );
  // The leaves' event ids and hashes, each from the tile holding it (the event ids' key has no index by leaf).
  const { rows } = await c.pool.query<{ leaf_index: string; event_id: string; leaf_hash: Buffer }>(
    `SELECT w.i AS leaf_index,
       encode(substring(t.event_ids FROM (w.i - t.first_index)::int * 16 + 1 FOR 16), 'hex')::uuid::text AS event_id,
       substring(t.leaf_hashes FROM (w.i - t.first_index)::int * 32 + 1 FOR 32) AS leaf_hash
     FROM unnest($2::bigint[]) AS w (i)
     CROSS JOIN LATERAL (SELECT first_index, event_ids, leaf_hashes FROM integrity_tiles
       WHERE tree_id = $1 AND first_index <= w.i ORDER BY first_index DESC LIMIT 1) t`,
    [tree[0]!.tree_id, [...wanted]],
  );
  const missing = wanted.size - rows.filter((r) => r.leaf_hash.length === 32).length;
  if (missing > 0) throw new Error(`${missing} of the leaves sampled are in no tile`);
  const store = integrityStore(c.pool);
  const auth = { authorization: `Bearer ${c.key}` };
  const times = {
    primaryKey: [] as number[],
    store: [] as number[],
    gateway: [] as number[],
    keys: [] as number[],
  };
  let read = 0;
  for (const [i, leaf] of rows.entries()) {
    const index = Number(leaf.leaf_index);
    let t = performance.now();
    await c.pool.query(
      `SELECT substring(leaf_hashes FROM ($2 - first_index)::int * 32 + 1 FOR 32) FROM integrity_tiles
       WHERE tree_id = $1 AND first_index <= $2 ORDER BY first_index DESC LIMIT 1`,
      [tree[0]!.tree_id, index],
    );
    const primaryKey = performance.now() - t;
    t = performance.now();
    const proof = await store.inclusionProof(c.tenant, index, c.size);
    const storeMs = performance.now() - t;
    const answer = await c.http.request(`${API}/audit/integrity/proofs/inclusion?event_id=${leaf.event_id}`, {
      headers: auth,
    });
    const keys = await c.http.request(`${API}/audit/integrity/keys`, { headers: auth });
    if (!verifyInclusion(leaf.leaf_hash, index, c.size, proof, c.root))
      throw new Error(`the store's proof of leaf ${index} does not verify`);
    const served = JSON.parse(answer.body) as { tree_size: number; hashes: string[] };
    const same = served.hashes?.join() === proof.map((h) => Buffer.from(h).toString('base64')).join();
    if (answer.status !== 200 || served.tree_size !== c.size || !same || keys.status !== 200)
      throw new Error(`the gateway's proof of leaf ${index}: ${answer.status} ${answer.body.slice(0, 200)}`);
    if (i < c.warmup) continue;
    times.primaryKey.push(primaryKey);
    times.store.push(storeMs);
    times.gateway.push(answer.totalMs);
    times.keys.push(keys.totalMs);
    read += hashesRead(index, c.size);
  }
  return {
    primaryKey: summarize(times.primaryKey),
    store: summarize(times.store),
    gateway: summarize(times.gateway),
    keys: summarize(times.keys),
    /** Stored hashes read per proof, on average; and the proof's own hashes. */
    hashesRead: read / times.store.length,
    proofHashes: inclusionRanges(0, c.size).length,
  };
}
