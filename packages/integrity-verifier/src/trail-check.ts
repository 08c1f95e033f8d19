import { Buffer } from 'node:buffer';
import { verifyCheckpoint, type Checkpoint, type VerifierKey } from './checkpoint.js';
import { IdIndex } from './id-index.js';
import { apiMillis } from './leaf.js';
import { verifyConsistency } from './merkle.js';
import { rootOfLeaves } from './multiproof.js';
import type { HashedBlock } from './row-hasher.js';
import { rowLeaf } from './row-leaf.js';

/** A checkpoint as GET /audit/integrity/checkpoints lists it: what the trail check reads of it. */
export interface ListedCheckpoint {
  tree_size: number;
  note: string;
  /** The consistency proof from the tenant's previous checkpoint; null for its first. */
  previous: { tree_size: number; hashes: string[] } | null;
}

/** One page of a window's proof as GET /audit/integrity/proofs/window gives it. */
export interface WindowProof {
  tree_size: number;
  since: string | null;
  until: string | null;
  leaves: { event_id: string; leaf_index: number; timestamp: string; leaf_hash: string; purged?: boolean }[];
  hashes: string[];
  /** The tenant's purge horizon; absent from a service older than purges, which marks no leaf purged. */
  purged_before?: string | null;
  later: string[];
}

/** What the trail check found wrong, each naming the checkpoint or the event it is about. */
export type Finding =
  | { kind: 'checkpoint'; tree_size: number; problem: string }
  | { kind: 'proof'; tree_size: number; problem: string }
  | { kind: 'altered' | 'missing'; event_id: string; leaf_index: number }
  | { kind: 'forged' | 'uncovered' | 'outside' | 'repeated'; event_id: string }
  | { kind: 'row'; row: number; problem: string };

export interface TrailCheck {
  ok: boolean;
  /** Checkpoints whose signature verified, and links between them whose consistency proof verified. */
  checkpoints: number;
  links: number;
  leaves: number;
  rows: number;
  /** Leaves without a row that the proof marks purged by the tenant's retention: not missing. */
  purged: number;
  /**
   * The latest purge horizon the pages gave (null: none), which every believed mark is older than: compare it
   * with the tenant's `admin.retention.purge` events (docs/integrity.md "Purged or missing").
   */
  purged_before: string | null;
  findings: Finding[];
}

export interface TrailCheckInput {
  keys: readonly VerifierKey[];
  checkpoints: readonly ListedCheckpoint[];
  /** Its pages, taken one at a time (the verifier command parses each as it is taken). */
  proofs: Iterable<WindowProof>;
  /** The export holds every event of the window (no filter but the window): leaves without a row are missing. */
  complete: boolean;
  /** The origin the checkpoints must have; otherwise they must all have one. */
  origin?: string;
}

// The characters of base64, by character code.
const BASE64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
  BASE64[c.charCodeAt(0)] = 1;
/** Whether the text is a SHA-256 as the API writes it: 43 characters of base64 and one `=`. */
function isSha256Base64(text: unknown): text is string {
  if (typeof text !== 'string' || text.length !== 44 || text.charCodeAt(43) !== 0x3d) return false;
  for (let i = 0; i < 43; i++) if (BASE64[text.charCodeAt(i)] !== 1) return false;
  return true;
}
const bytes = (b64: unknown): Uint8Array | null => (isSha256Base64(b64) ? Buffer.from(b64, 'base64') : null);
/** Whether the `length` bytes of `a` from `i` are those of `b` from `j`. */
function sameBytes(a: Uint8Array, i: number, b: Uint8Array, j: number, length: number): boolean {
  for (let n = 0; n < length; n++) if (a[i + n] !== b[j + n]) return false;
  return true;
}
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && sameBytes(a, 0, b, 0, a.length);
/** A page's window as the API writes times; false for anything else. */
const wellFormedWindow = (page: WindowProof) =>
  [page.since, page.until].every((t) => t === null || apiMillis(t) !== null);
const time = (t: string | null, fallback: number) => (t === null ? fallback : (apiMillis(t) ?? NaN));

/** The checkpoints' own checks: signatures, one origin, one root per size, and the consistency of each link. */
function checkCheckpoints(input: TrailCheckInput, findings: Finding[]) {
  const verified = new Map<number, Checkpoint>();
  let origin = input.origin;
  let links = 0;
  const sorted = [...input.checkpoints].sort((a, b) => a.tree_size - b.tree_size);
  for (const listed of sorted) {
    const check = verifyCheckpoint(listed.note, input.keys);
    const problem = (p: string) =>
      findings.push({ kind: 'checkpoint', tree_size: listed.tree_size, problem: p });
    if (!check.ok) problem(check.reason);
    else if (check.checkpoint.size !== listed.tree_size)
      problem(`its note is of ${check.checkpoint.size} leaves`);
    else if ((origin ??= check.checkpoint.origin) !== check.checkpoint.origin)
      problem(`its origin ${JSON.stringify(check.checkpoint.origin)} is not ${JSON.stringify(origin)}`);
    else {
      const earlier = verified.get(listed.tree_size);
      if (earlier && !same(earlier.root, check.checkpoint.root))
        problem('another root for the same size: a fork');
      else verified.set(listed.tree_size, check.checkpoint);
    }
  }
  // Each verified checkpoint must be linked to the verified one before it: a checkpoint with no link, or with a
  // link that skips one, could be of another tree.
  const bySize = new Map(sorted.map((l) => [l.tree_size, l]));
  const sizes = [...verified.keys()].sort((a, b) => a - b);
  sizes.forEach((size, i) => {
    if (i === 0) return;
    const before = verified.get(sizes[i - 1]!)!;
    const cp = verified.get(size)!;
    const link = bySize.get(size)!.previous;
    const proof = link?.hashes.map(bytes) ?? [];
    const problem = (p: string) => findings.push({ kind: 'checkpoint', tree_size: size, problem: p });
    if (link?.tree_size !== before.size)
      problem(`not linked to the checkpoint of ${before.size} leaves before it`);
    else if (
      !proof.every((h) => h !== null) ||
      !verifyConsistency(before.size, cp.size, proof as Uint8Array[], before.root, cp.root)
    )
      problem(`not consistent with the checkpoint of ${before.size} leaves: one of the two forks`);
    else links += 1;
  });
  return { verified, links };
}

/** The most events one synchronous export gives (docs/api.md "POST /audit/export"). */
const EXPORT_CAP = 10_000;

/**
 * Where a truncated export's reach begins: leaves older than the returned time are not missing. It gives the
 * newest events first, up to the cap, and leaves out a whole millisecond that would not fit, so the cut holds only
 * if the next older millisecond's leaves would have passed the cap; with more than the cap in one millisecond it
 * gives the cap of them. A cut that does not hold exempts nothing: rows were removed.
 */
function cutOf(unseen: [string, { ts: number }][], rows: number, oldest: number, newest: number): number {
  if (rows === EXPORT_CAP && oldest === newest) return oldest + 1;
  const older = unseen.filter(([, leaf]) => leaf.ts < oldest);
  const next = Math.max(...older.map(([, leaf]) => leaf.ts));
  const run = older.filter(([, leaf]) => leaf.ts === next).length;
  return rows > 0 && (older.length === 0 || rows + run > EXPORT_CAP) ? oldest : -Infinity;
}

/** The trail check, in steps (yield) of a part of a page of the window proof, at the end its checker of rows. */
function* checking(input: TrailCheckInput) {
  const findings: Finding[] = [];
  const { verified, links } = checkCheckpoints(input, findings);
  // The window's leaves, by event id: the k-th leaf the pages show has its index, time and whether a row had it
  // at k, and its hash at 32 × k of one buffer. Kept in arrays rather than an object each: a verifier of a large
  // export holds hundreds of thousands, and the collector would mark them all again and again.
  const leaves = new IdIndex();
  const leafIndex: number[] = [];
  const leafTimes: number[] = [];
  // The slots the pages mark purged (docs/integrity.md "Purged or missing"), and the latest horizon given.
  const purgedSlots = new Set<number>();
  let horizonSeen: { text: string; ms: number } | null = null;
  // Each slot's event id, and the slots whose id a later leaf of the pages took over (a hostile proof's).
  const slotIds: string[] = [];
  const overtaken = new Set<number>();
  const hashParts: Buffer[] = [];
  const later = new Set<string>();
  // The first page's window and size, which every page must have (not the page: its leaves are garbage after it).
  let first: Pick<WindowProof, 'tree_size' | 'since' | 'until'> | undefined;
  let k = 0;
  for (const page of input.proofs) {
    const problem = (p: string) => findings.push({ kind: 'proof', tree_size: page.tree_size, problem: p });
    const checkpoint = verified.get(page.tree_size);
    const shown = [...page.leaves].sort((a, b) => a.leaf_index - b.leaf_index);
    const times = shown.map((l) => apiMillis(l.timestamp));
    const horizon = page.purged_before ?? null;
    const purgedBefore = horizon === null ? null : apiMillis(horizon);
    const cover = page.hashes.map(bytes);
    // A page with a time or a hash not as the API writes it proves nothing: none of its leaves is taken, nor its
    // window, as docs/integrity.md's Python reference does.
    if (!wellFormedWindow(page) || times.includes(null) || (horizon !== null && purgedBefore === null)) {
      problem('its times are not as the API writes them');
      yield;
      continue;
    }
    if (shown.some((l) => !isSha256Base64(l.leaf_hash)) || cover.includes(null)) {
      problem('a hash is not SHA-256 in base64');
      yield;
      continue;
    }
    first ??= { tree_size: page.tree_size, since: page.since, until: page.until };
    // A leaf marked purged is believed only under the page's horizon; a mark above it is a finding.
    const underHorizon = (i: number) => purgedBefore !== null && times[i]! < purgedBefore;
    if (horizon !== null && purgedBefore !== null && (horizonSeen === null || purgedBefore > horizonSeen.ms))
      horizonSeen = { text: horizon, ms: purgedBefore };
    // This page's leaf hashes: its first shown leaf is the k-th, at 0.
    const base = k;
    const pageHashes = Buffer.alloc(32 * shown.length);
    const slots = shown.map((l, i) => {
      pageHashes.write(l.leaf_hash, 32 * (k - base), 32, 'base64');
      leafIndex[k] = l.leaf_index;
      slotIds[k] = l.event_id;
      leafTimes[k] = times[i]!;
      return k++;
    });
    hashParts.push(pageHashes);
    yield;
    if (page.tree_size !== first.tree_size || page.since !== first.since || page.until !== first.until)
      problem('its pages are of different windows or checkpoints');
    else if (!checkpoint) problem('no checkpoint of its size verified');
    else {
      const proven = shown.map((l, i) => ({
        index: l.leaf_index,
        hash: pageHashes.subarray(32 * (slots[i]! - base), 32 * (slots[i]! - base) + 32),
      }));
      const root = rootOfLeaves(checkpoint.size, proven, cover as Uint8Array[]);
      if (!root || !same(root, checkpoint.root))
        problem("its leaves and hashes do not make the checkpoint's root");
    }
    if (shown.some((l, i) => l.purged === true && !underHorizon(i)))
      problem("a leaf it marks purged is not older than the tenant's purge horizon");
    yield;
    shown.forEach((l, i) => {
      const before = leaves.set(l.event_id, slots[i]!);
      if (before !== -1) overtaken.add(before);
      if (l.purged === true && underHorizon(i)) purgedSlots.add(slots[i]!);
    });
    for (const id of page.later) later.add(id);
    yield;
  }
  const leafHashes = Buffer.concat(hashParts, 32 * k);
  const leafTime = Float64Array.from(leafTimes);
  const leafSeen = new Uint8Array(k);
  const since = time(first?.since ?? null, -Infinity);
  const until = time(first?.until ?? null, Infinity);
  // Nothing after this holds the input: the window proof's pages, parsed, are garbage once their leaves are kept.
  const complete = input.complete;
  let rows = 0;
  let oldest = Infinity;
  let newest = -Infinity;
  // The leaf of the row before. Exports list a window's events newest first, and leaves are in about the order
  // of time: the slot next to the last row's (either side), when it is the row's, is found without the index,
  // whose lookups are a cache miss each (docs/benchmarks/journal.md "bench:integrity").
  let last = -1;
  /** Whether slot `s` is the leaf of the id in `ids` from `start` to `end`, as the index would say. */
  const isSlotOf = (s: number, ids: string, start: number, end: number): boolean => {
    if (s < 0 || s >= k) return false;
    const id = slotIds[s]!;
    return id.length === end - start && ids.startsWith(id, start) && !overtaken.has(s);
  };
  /**
   * A row with its event's id (`ids` from `start` to `end`: sliced out only for a finding), time and leaf hash (the
   * 32 bytes of `hashes` from `at`), as rowLeaf gives them.
   */
  const hashed = (ids: string, start: number, end: number, ts: number, hashes: Uint8Array, at = 0): void => {
    rows += 1;
    if (ts < oldest) oldest = ts;
    if (ts > newest) newest = ts;
    const leaf = isSlotOf(last - 1, ids, start, end)
      ? last - 1
      : isSlotOf(last + 1, ids, start, end)
        ? last + 1
        : leaves.find(ids, start, end);
    if (leaf !== -1) last = leaf;
    if (leaf === -1) {
      const id = ids.slice(start, end);
      if (ts < since || ts >= until) findings.push({ kind: 'outside', event_id: id });
      else findings.push({ kind: later.has(id) ? 'uncovered' : 'forged', event_id: id });
    } else if (leafSeen[leaf] === 1) findings.push({ kind: 'repeated', event_id: ids.slice(start, end) });
    else {
      leafSeen[leaf] = 1;
      if (!sameBytes(hashes, at, leafHashes, 32 * leaf, 32))
        findings.push({ kind: 'altered', event_id: ids.slice(start, end), leaf_index: leafIndex[leaf]! });
    }
  };
  /** A row that is not an event, the `position`-th from 1, and why (rowLeaf's answer). */
  const refused = (position: number, problem: string): void => {
    rows += 1;
    findings.push({ kind: 'row', row: position, problem });
  };
  return {
    /** One row of the export (a parsed JSON object), the `position`-th from 1. */
    row(value: unknown, position: number): void {
      const leaf = rowLeaf(value);
      if (typeof leaf === 'string') refused(position, leaf);
      else hashed(leaf.id, 0, leaf.id.length, leaf.ts, leaf.hash);
    },
    /** The `position`-th row from 1, which could not be read as a row at all (a CSV record that is not one). */
    unreadable: refused,
    /** A block of rows read elsewhere (the verifier command's worker threads), in order. */
    block(b: HashedBlock): void {
      let next = 0;
      for (let i = 0, start = 0; i < b.times.length; start = b.idEnds[i]!, i++) {
        if (b.refusedAt[next] === i) refused(rows + 1, b.problems[b.refusedProblem[next++]!]!);
        else hashed(b.ids, start, b.idEnds[i]!, b.times[i]!, b.hashes, 32 * i);
      }
    },
    /** The result. `truncated`: the export says it stopped at its cap (see cutOf). */
    finish(truncated: boolean): TrailCheck {
      let purged = 0;
      if (complete) {
        // A purged event is in no export: neither missing nor a leaf a truncated export's cut counts.
        const unseen: [string, { ts: number; index: number }][] = [];
        for (const [id, leaf] of leaves.entries()) {
          if (leafSeen[leaf] === 1) continue;
          if (purgedSlots.has(leaf)) purged += 1;
          else unseen.push([id, { ts: leafTime[leaf]!, index: leafIndex[leaf]! }]);
        }
        const from = truncated ? cutOf(unseen, rows, oldest, newest) : -Infinity;
        for (const [id, leaf] of unseen) {
          if (leaf.ts >= from) findings.push({ kind: 'missing', event_id: id, leaf_index: leaf.index });
        }
      }
      return {
        ok: findings.length === 0,
        checkpoints: verified.size,
        links,
        leaves: leaves.size,
        rows,
        purged,
        purged_before: horizonSeen?.text ?? null,
        findings,
      };
    },
  };
}

export type TrailChecker = ReturnType<typeof trailCheck>;

/**
 * The offline check of an export (docs/integrity.md "Offline verification"): the checkpoints, the window proof's
 * leaves against a verified checkpoint's root, and each row of the export against its leaf. Rows are given one at
 * a time (`row`), or a block at a time as the verifier command's threads read them (`block`), so that an export of
 * any size streams through; `finish` names what is left.
 */
export function trailCheck(input: TrailCheckInput) {
  const steps = checking(input);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * trailCheck, with a turn of the event loop after each step, a few milliseconds: the verifier command's reader then
 * keeps its worker threads fed while the window proof is checked, instead of waiting for the whole of it.
 */
export async function trailCheckInTurns(input: TrailCheckInput): Promise<TrailChecker> {
  const steps = checking(input);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
