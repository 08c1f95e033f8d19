import { Buffer } from 'node:buffer';
import { verifyCheckpoint, type Checkpoint, type VerifierKey } from './checkpoint.js';
import { apiMillis, leafEventOf, leafHashOf } from './leaf.js';
import { verifyConsistency } from './merkle.js';
import { rootOfLeaves } from './multiproof.js';

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
  leaves: { event_id: string; leaf_index: number; timestamp: string; leaf_hash: string }[];
  hashes: string[];
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
  findings: Finding[];
}

export interface TrailCheckInput {
  keys: readonly VerifierKey[];
  checkpoints: readonly ListedCheckpoint[];
  proofs: readonly WindowProof[];
  /** The export holds every event of the window (no filter but the window): leaves without a row are missing. */
  complete: boolean;
  /** The origin the checkpoints must have; otherwise they must all have one. */
  origin?: string;
}

const bytes = (b64: unknown) =>
  typeof b64 === 'string' && /^[A-Za-z0-9+/]{43}=$/.test(b64)
    ? new Uint8Array(Buffer.from(b64, 'base64'))
    : null;
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
/** A page's times as the API writes them; false for anything else. */
const wellFormed = (page: WindowProof) =>
  [page.since, page.until].every((t) => t === null || apiMillis(t) !== null) &&
  page.leaves.every((l) => apiMillis(l.timestamp) !== null);
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

/**
 * The offline check of an export (docs/integrity.md "Offline verification"): the checkpoints, the window proof's
 * leaves against a verified checkpoint's root, and each row of the export against its leaf. Rows are given one at
 * a time (`row`), so that an export of any size streams through; `finish` names what is left.
 */
export function trailCheck(input: TrailCheckInput) {
  const findings: Finding[] = [];
  const { verified, links } = checkCheckpoints(input, findings);
  const leaves = new Map<string, { index: number; hash: Uint8Array; ts: number; seen: boolean }>();
  const later = new Set<string>();
  const first = input.proofs[0];
  const since = time(first?.since ?? null, -Infinity);
  const until = time(first?.until ?? null, Infinity);
  for (const page of input.proofs) {
    const problem = (p: string) => findings.push({ kind: 'proof', tree_size: page.tree_size, problem: p });
    const checkpoint = verified.get(page.tree_size);
    const shown = [...page.leaves].sort((a, b) => a.leaf_index - b.leaf_index);
    const hashes = [...shown.map((l) => bytes(l.leaf_hash)), ...page.hashes.map(bytes)];
    if (page.tree_size !== first!.tree_size || page.since !== first!.since || page.until !== first!.until)
      problem('its pages are of different windows or checkpoints');
    else if (!checkpoint) problem('no checkpoint of its size verified');
    else if (!wellFormed(page)) problem('its times are not as the API writes them');
    else if (hashes.some((h) => h === null)) problem('a hash is not SHA-256 in base64');
    else {
      const proven = shown.map((l) => ({ index: l.leaf_index, hash: bytes(l.leaf_hash)! }));
      const root = rootOfLeaves(
        checkpoint.size,
        proven,
        page.hashes.map((h) => bytes(h)!),
      );
      if (!root || !same(root, checkpoint.root))
        problem("its leaves and hashes do not make the checkpoint's root");
    }
    for (const l of shown) {
      const hash = bytes(l.leaf_hash);
      if (hash)
        leaves.set(l.event_id, { index: l.leaf_index, hash, ts: apiMillis(l.timestamp) ?? NaN, seen: false });
    }
    for (const id of page.later) later.add(id);
  }
  let rows = 0;
  let oldest = Infinity;
  let newest = -Infinity;
  return {
    /** One row of the export (a parsed JSON object), the `position`-th from 1. */
    row(value: unknown, position: number): void {
      rows += 1;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        findings.push({ kind: 'row', row: position, problem: 'not a JSON object' });
        return;
      }
      let hash: Uint8Array;
      let id: string;
      let ts: number;
      try {
        const event = leafEventOf(value as Record<string, unknown>);
        [hash, id, ts] = [leafHashOf(event), event.event_id, event.timestamp];
      } catch (err) {
        findings.push({ kind: 'row', row: position, problem: (err as Error).message });
        return;
      }
      oldest = Math.min(oldest, ts);
      newest = Math.max(newest, ts);
      const leaf = leaves.get(id);
      if (leaf?.seen) findings.push({ kind: 'repeated', event_id: id });
      else if (leaf) {
        leaf.seen = true;
        if (!same(leaf.hash, hash)) findings.push({ kind: 'altered', event_id: id, leaf_index: leaf.index });
      } else if (ts < since || ts >= until) findings.push({ kind: 'outside', event_id: id });
      else findings.push({ kind: later.has(id) ? 'uncovered' : 'forged', event_id: id });
    },
    /** The result. `truncated`: the export says it stopped at its cap (see cutOf). */
    finish(truncated: boolean): TrailCheck {
      if (input.complete) {
        const unseen = [...leaves].filter(([, leaf]) => !leaf.seen);
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
        findings,
      };
    },
  };
}
