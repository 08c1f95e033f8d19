// Tenants' trails in memory, for the offline check's tests: events, the tree over them, and what the API would
// answer about them.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { signCheckpoint, verifierKeyOf } from '../../services/shared/src/integrity/checkpoint-signer.js';
import { consistencyRanges, coverRanges, proofOf } from '../../services/shared/src/integrity/proof-ranges.js';
import {
  COMMITTED_FIELDS,
  LEAF_FIELDS,
  LEAF_V2_FIELDS,
  leafEventOf,
  leafHashOf,
  type CommittedField,
  parseVerifierKey,
  rootOf,
  trailCheck,
  type ListedCheckpoint,
  type TrailCheck,
  type WindowProof,
} from '@audit-trail/integrity-verifier';

export const ORIGIN = 'audit.example.test/tenants/acme';
export const key = { name: 'audit.example.test-1', privateKey: generateKeyPairSync('ed25519').privateKey };
export const keys = [parseVerifierKey(verifierKeyOf(key))!];
export const T0 = Date.UTC(2026, 10, 1);
const iso = (ms: number) => new Date(ms).toISOString();
export const row = (i: number, ts = T0 + i * 1000) => ({
  event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  timestamp: iso(ts),
  tenant_id: 'acme',
  action: 'phi.read',
  user_id: `user-${i}`,
  user_role: 'clinician',
  resource_type: 'patient',
  resource_id: `p-${i}`,
  fields_accessed: '["dob"]',
  phi_involved: true,
  source_ip: '203.0.113.7',
  user_agent: 'ua',
  justification: '',
  success: true,
  details: '{}',
  // Leaves of both versions: every other event names a patient and a purpose, some of those are disclosures.
  ...laterFields(i),
});

/**
 * Version 2's fields of event `i` (docs/ingest.md "Disclosures"): their defaults when i is even (a leaf of version
 * 1); a patient and a purpose when it is odd, and a disclosure with its recipient at 3 and 7 modulo 8, with an
 * exclusion at 7 (leaves of version 2).
 */
function laterFields(i: number) {
  const named = i % 2 === 1;
  const disclosed = i % 4 === 3;
  return {
    patient_id: named ? `mrn-${i}` : '',
    purpose_of_use: named ? (disclosed ? 'HPAYMT' : 'TREAT') : '',
    // Text a CSV field must quote.
    recipient: disclosed ? `Payer ${i}, "Claims" — 1 Main St` : '',
    disclosure: disclosed,
    accounting_exclusion: i % 8 === 7 ? 'treatment_payment_operations' : '',
  };
}

/** The names of version 2's fields, which an answer or file written before them does not have. */
export const LATER_FIELDS = [
  'patient_id',
  'purpose_of_use',
  'recipient',
  'disclosure',
  'accounting_exclusion',
] as const;

/** A row as an answer or export written before version 2's fields gives it: without them. */
export const withoutLaterFields = <T extends object>(r: T): Omit<T, (typeof LATER_FIELDS)[number]> =>
  Object.fromEntries(
    Object.entries(r).filter(([name]) => !(LATER_FIELDS as readonly string[]).includes(name)),
  ) as Omit<T, (typeof LATER_FIELDS)[number]>;

export const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** A trail of events at the given times, in leaf order, and the API's answers about it. */
export function makeTrail(times: number[]) {
  return trailOf(
    times,
    times.map((ts, i) => row(i, ts)),
  );
}

/**
 * A trail of events written before version 2's fields (their rows without them, every leaf of version 1), and the
 * API's answers about it.
 */
export function makeTrailBefore(times: number[]) {
  return trailOf(
    times,
    times.map((ts, i) => withoutLaterFields(row(i, ts))),
  );
}

/** The salts of event `i` as a version 3 row: bytes of its own. */
const saltsOf = (i: number) => Uint8Array.from({ length: 128 }, (_, k) => (k * 31 + i * 7) & 0xff);

/** Event `i` as a version 3 row (docs/integrity.md "Version 3"): its fields, and the salts its leaf commits with. */
export const rowV3 = (i: number, ts = T0 + i * 1000) => ({ ...row(i, ts), leaf_salts: b64(saltsOf(i)) });

const FIELD_NUMBERS: Record<string, number> = Object.fromEntries(
  [...LEAF_FIELDS, ...LEAF_V2_FIELDS].map((f, i) => [f.name, i + 1]),
);

/**
 * A version 3 row with `names` erased, as the API gives it: each null, its salt zeros, and its commitment in
 * `erased`, SHA-256(0x10 || its number || its salt || its UTF-8), made here from the documentation.
 */
export function erase(r: Record<string, unknown>, names: readonly CommittedField[]): Record<string, unknown> {
  const salts = Buffer.from(r.leaf_salts as string, 'base64');
  const erased: Record<string, string> = { ...(r.erased as Record<string, string> | undefined) };
  for (const name of names) {
    const slot = COMMITTED_FIELDS.indexOf(name);
    erased[name] = b64(
      createHash('sha256')
        .update(Buffer.from([0x10, FIELD_NUMBERS[name]!]))
        .update(salts.subarray(16 * slot, 16 * (slot + 1)))
        .update((r[name] as string | undefined) ?? '')
        .digest(),
    );
    salts.fill(0, 16 * slot, 16 * (slot + 1));
  }
  return { ...r, ...Object.fromEntries(names.map((name) => [name, null])), leaf_salts: b64(salts), erased };
}

function trailOf<R extends Record<string, unknown> & { event_id: string; timestamp: string }>(
  times: number[],
  rows: R[],
) {
  const hashes = rows.map((r) => leafHashOf(leafEventOf(r)));
  const subtree = (s: { level: number; index: number }) =>
    rootOf(hashes.slice(s.index * 2 ** s.level, (s.index + 1) * 2 ** s.level));
  const note = (size: number, root = rootOf(hashes.slice(0, size))) =>
    signCheckpoint({ origin: ORIGIN, size, root, time: T0 }, key);
  const listed = (sizes: number[]): ListedCheckpoint[] =>
    sizes.map((size, i) => ({
      tree_size: size,
      note: note(size),
      previous:
        i === 0
          ? null
          : {
              tree_size: sizes[i - 1]!,
              hashes: proofOf(consistencyRanges(sizes[i - 1]!, size), subtree).map(b64),
            },
    }));
  /** The window proof of the events with index in [from, to), in a checkpoint of `size`: the rest are later. */
  const windowProof = (from: number, to: number, size: number): WindowProof => {
    const all = [...Array(to - from).keys()].map((i) => i + from);
    const indices = all.filter((i) => i < size);
    return {
      tree_size: size,
      since: iso(times[from]!),
      until: iso(to < times.length ? times[to]! : times.at(-1)! + 1),
      leaves: indices.map((i) => ({
        event_id: rows[i]!.event_id,
        leaf_index: i,
        timestamp: rows[i]!.timestamp,
        leaf_hash: b64(hashes[i]!),
      })),
      hashes: proofOf(coverRanges(indices, size), subtree).map(b64),
      later: all.filter((i) => i >= size).map((i) => rows[i]!.event_id),
    };
  };
  return { rows, hashes, note, listed, windowProof };
}

export const { rows, hashes, note, listed, windowProof } = makeTrail(
  Array.from({ length: 20 }, (_, i) => T0 + i * 1000),
);

/** One offline check's input, as the API's answers would make it. */
export interface TrailScenario {
  name: string;
  rows: unknown[];
  proofs: WindowProof[];
  checkpoints: ListedCheckpoint[];
  complete: boolean;
  truncated: boolean;
}

/** The TypeScript check of a scenario, its rows given one at a time as the command gives them. */
export function checkScenario(s: TrailScenario): TrailCheck {
  const check = trailCheck({
    keys,
    checkpoints: s.checkpoints,
    proofs: s.proofs,
    complete: s.complete,
    origin: ORIGIN,
  });
  s.rows.forEach((r, i) => check.row(r, i + 1));
  return check.finish(s.truncated);
}

/** Untouched, tampered and partial exports, and tampered checkpoints: every kind of finding there is. */
export function trailScenarios(): TrailScenario[] {
  const base = {
    proofs: [windowProof(4, 10, 12)],
    checkpoints: listed([5, 12, 20]),
    complete: true,
    truncated: false,
  };
  const window = rows.slice(4, 10);
  const forged = { ...row(21), timestamp: rows[5]!.timestamp };
  const badSignature = listed([5, 12, 20]);
  badSignature[0]!.note = badSignature[0]!.note.replace('\ntime 2026', '\ntime 2025');
  const fork = listed([5, 12, 20]);
  fork[1]!.note = note(12, rootOf([...hashes.slice(0, 11), hashes[0]!]));
  const unlinked = listed([5, 12, 20]);
  unlinked[2]!.previous = null;
  const skipping = listed([5, 12, 20]);
  skipping[2]!.previous = listed([5, 20])[1]!.previous;
  const dropped = windowProof(4, 10, 12);
  dropped.leaves.splice(2, 1);
  // The tenant's purge passed the window's first three events; a hold kept the third's row.
  const purgedUnder = (horizon: number, marked: number[]): WindowProof => {
    const proof = windowProof(4, 10, 12);
    proof.purged_before = rows[horizon]!.timestamp;
    for (const l of proof.leaves) if (marked.includes(l.leaf_index)) l.purged = true;
    return proof;
  };
  const unmarked = purgedUnder(7, [4, 5]);
  delete unmarked.purged_before;
  // A page one of whose leaves has a time, or a hash, not as the API writes it: the page proves none of its leaves.
  const spoiled = (leaf: Partial<WindowProof['leaves'][number]>): WindowProof[] => {
    const proof = windowProof(4, 10, 12);
    Object.assign(proof.leaves[2]!, leaf);
    return [proof];
  };
  return [
    { name: 'untouched', rows: window, ...base },
    {
      name: 'tampered rows',
      rows: [
        { ...rows[4]!, user_id: 'mallory' },
        rows[6],
        rows[6],
        rows[7],
        rows[8],
        forged,
        rows[15],
        'text',
      ],
      ...base,
    },
    { name: 'uncovered', rows: window, ...base, proofs: [windowProof(4, 10, 8)], checkpoints: listed([8]) },
    { name: 'truncated with no row', rows: [], ...base, truncated: true },
    { name: 'partial', rows: [rows[5]], ...base, complete: false },
    { name: 'bad signature', rows: window, ...base, checkpoints: badSignature },
    { name: 'fork', rows: window, ...base, checkpoints: fork },
    { name: 'proof without a leaf', rows: window, ...base, proofs: [dropped] },
    { name: 'purged', rows: window.slice(2), ...base, proofs: [purgedUnder(7, [4, 5, 6])] },
    // A leaf marked purged that its page's horizon does not pass, or with no horizon: the mark is not believed.
    {
      name: 'purged above the horizon',
      rows: window.slice(2, 4),
      ...base,
      proofs: [purgedUnder(7, [4, 5, 8, 9])],
    },
    { name: 'purged without a horizon', rows: window.slice(2), ...base, proofs: [unmarked] },
    { name: 'purged at the horizon', rows: window.slice(2), ...base, proofs: [purgedUnder(7, [4, 5, 7])] },
    {
      name: 'page with a time not as the API writes it',
      rows: window,
      ...base,
      proofs: spoiled({ timestamp: 'x' }),
    },
    { name: 'page with a hash not in base64', rows: window, ...base, proofs: spoiled({ leaf_hash: '!!!' }) },
    { name: 'checkpoint without its link', rows: window, ...base, checkpoints: unlinked },
    { name: 'link that skips a checkpoint', rows: window, ...base, checkpoints: skipping },
    // The instant of rows[0] (T0, November 1), spelled as the 24th hour of October 31: not as the API writes it.
    {
      name: 'impossible date',
      rows: [{ ...rows[0]!, timestamp: '2026-10-31T24:00:00.000Z' }, ...rows.slice(1, 6)],
      ...base,
      proofs: [windowProof(0, 6, 12)],
    },
    // The window as an export written before version 2's fields has it: those of version 1 verify, not the others.
    { name: 'rows without the later fields', rows: window.map(withoutLaterFields), ...base },
    ...version3Scenarios(),
    ...cutScenarios(),
  ];
}

/**
 * A trail of version 3 leaves, some of whose fields are erased (docs/integrity.md "Version 3"): an erased field
 * verifies through its commitment, and any other change is still caught, an erasure with the commitment of another
 * value, a salt or a kept field changed, and an erased value brought back.
 */
function version3Scenarios(): TrailScenario[] {
  const trail = trailOf(
    Array.from({ length: 20 }, (_, i) => T0 + i * 1000),
    Array.from({ length: 20 }, (_, i) => rowV3(i)),
  );
  const base = {
    proofs: [trail.windowProof(4, 10, 12)],
    checkpoints: trail.listed([5, 12, 20]),
    complete: true,
    truncated: false,
  };
  const window: Record<string, unknown>[] = trail.rows.slice(4, 10);
  const erased = window.map((r, i) => (i % 2 ? erase(r, COMMITTED_FIELDS.slice(i % 3, (i % 3) + 3)) : r));
  const otherSalts = Buffer.from(window[1]!.leaf_salts as string, 'base64');
  otherSalts[0]! ^= 1;
  return [
    { name: 'version 3, fields erased', rows: erased, ...base },
    {
      name: 'version 3, tampered after an erasure',
      rows: [
        { ...erase({ ...window[0]!, user_id: 'someone else' }, ['user_id']) },
        { ...window[1]!, leaf_salts: b64(otherSalts) },
        { ...erased[3]!, [Object.keys(erased[3]!.erased as object)[0]!]: 'back again' },
        { ...erased[5]!, action: 'phi.write' },
        erased[2],
        erased[4],
      ],
      ...base,
    },
  ];
}

/**
 * A window of 10,003 events, the oldest three in one millisecond, exported newest first to the cap: the 10,000
 * newest, which is an honest cut (the next millisecond's three would not fit), and the same with its oldest row
 * removed, which is not.
 */
function cutScenarios(): TrailScenario[] {
  const trail = makeTrail(Array.from({ length: 10_003 }, (_, i) => T0 + Math.max(0, i - 2)));
  const base = {
    proofs: [trail.windowProof(0, 10_003, 10_003)],
    checkpoints: trail.listed([10_003]),
    complete: true,
    truncated: true,
  };
  const newest = trail.rows.slice(3).reverse();
  return [
    { name: 'honest cut', rows: newest, ...base },
    { name: 'cut with its oldest row removed', rows: newest.slice(0, -1), ...base },
  ];
}
