import {
  appendLeaves,
  EMPTY_FRONTIER,
  frontierRoot,
  verifyCheckpoint,
  type Frontier,
  type VerifierKey,
} from '@audit/shared/integrity';

/** What `ops integrity verify` finds wrong, each naming the event or checkpoint (docs/integrity.md "Verify"). */
export type Finding =
  | { kind: 'altered'; event_id: string; leaf_index: number }
  | { kind: 'missing'; event_id: string; leaf_index: number }
  | { kind: 'forged'; event_id: string }
  | { kind: 'checkpoint'; tree_size: number; problem: string }
  | { kind: 'key'; name: string; problem: string };

/** A stored row's event id and the leaf hash of the event as the API returns it. */
export interface RowHash {
  event_id: string;
  hash: Uint8Array;
}

/** A leaf of the tenant's tree: its event, its hash and its event's time as the tree holds them. */
export interface TreeLeaf {
  event_id: string;
  leaf_index: number;
  leaf_hash: Uint8Array;
  /** Null for a leaf appended before leaves had times (migration 0017). */
  ts: number | null;
}

/** A leaf with no row that the tenant's retention policy accounts for: not a finding, counted. */
export interface PurgedLeaf {
  kind: 'purged';
  event_id: string;
  leaf_index: number;
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/**
 * Every difference between the stored rows and the tree's leaves, both sorted by event id: a leaf no row is of
 * (missing, or purged where `purged` says the tenant's retention removed it), a row no leaf is of (forged), a row
 * whose event is not the leaf's (altered). Several rows of one event (a re-insert ClickHouse has not merged yet)
 * are fine when each is the leaf's.
 */
export async function* compareRows(
  rows: AsyncIterable<RowHash>,
  leaves: AsyncIterable<TreeLeaf>,
  purged: (leaf: TreeLeaf) => boolean = () => false,
): AsyncGenerator<Finding | PurgedLeaf> {
  const r = rows[Symbol.asyncIterator]();
  const l = leaves[Symbol.asyncIterator]();
  let row = await r.next();
  let leaf = await l.next();
  while (!row.done || !leaf.done) {
    if (leaf.done || (!row.done && row.value.event_id < leaf.value.event_id)) {
      const id = row.value!.event_id;
      yield { kind: 'forged', event_id: id };
      while (!row.done && row.value.event_id === id) row = await r.next();
    } else if (row.done || leaf.value.event_id < row.value.event_id) {
      const { event_id, leaf_index } = leaf.value;
      yield { kind: purged(leaf.value) ? 'purged' : 'missing', event_id, leaf_index };
      leaf = await l.next();
    } else {
      const current = leaf.value;
      let altered = false;
      while (!row.done && row.value.event_id === current.event_id) {
        altered ||= !same(row.value.hash, current.leaf_hash);
        row = await r.next();
      }
      if (altered) yield { kind: 'altered', event_id: current.event_id, leaf_index: current.leaf_index };
      leaf = await l.next();
    }
  }
}

export interface StoredNote {
  tree_size: number;
  note: string;
}

/**
 * The tree's leaf hashes, in leaf order, against its checkpoints (ascending sizes): each must be signed by one of
 * the keys, name the tenant's origin and its own size, and have the root of the first `tree_size` leaves. A
 * checkpoint whose root is not that is a fork: the tree it signed is not an extension of the one it follows.
 */
export async function* checkCheckpoints(
  leafHashes: AsyncIterable<readonly Uint8Array[]>,
  checkpoints: readonly StoredNote[],
  keys: readonly VerifierKey[],
  origin: string,
): AsyncGenerator<Finding> {
  const pending = [...checkpoints].sort((a, b) => a.tree_size - b.tree_size);
  let frontier: Frontier = EMPTY_FRONTIER;
  const compare = function* (c: StoredNote): Generator<Finding> {
    const problem = (text: string): Finding => ({
      kind: 'checkpoint',
      tree_size: c.tree_size,
      problem: text,
    });
    const verified = verifyCheckpoint(c.note, keys);
    if (!verified.ok) return yield problem(verified.reason);
    const cp = verified.checkpoint;
    if (cp.origin !== origin) return yield problem(`its origin is ${cp.origin}, not ${origin}`);
    if (cp.size !== c.tree_size) return yield problem(`its note says ${cp.size} leaves`);
    if (!same(cp.root, frontierRoot(frontier)))
      yield problem('its root is not the root of the tree: it forks from the leaves');
  };
  for await (const chunk of leafHashes) {
    // Appended up to the next checkpoint's size at a time, where the root is compared.
    for (let at = 0; at < chunk.length;) {
      const room = pending[0] ? pending[0].tree_size - frontier.size : chunk.length;
      const take = Math.max(1, Math.min(chunk.length - at, room));
      frontier = appendLeaves(frontier, chunk.slice(at, at + take)).frontier;
      at += take;
      while (pending[0] !== undefined && pending[0].tree_size <= frontier.size) {
        const c = pending.shift()!;
        if (c.tree_size === frontier.size) yield* compare(c);
        else yield { kind: 'checkpoint', tree_size: c.tree_size, problem: 'no tree has that size' };
      }
    }
  }
  for (const c of pending) {
    yield {
      kind: 'checkpoint',
      tree_size: c.tree_size,
      problem: `the tree has only ${frontier.size} leaves`,
    };
  }
}
