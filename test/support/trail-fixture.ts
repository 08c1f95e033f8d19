// A tenant's trail in memory, for the offline check's tests: 20 events one second apart, the tree over them, and
// what the API would answer about them.
import { generateKeyPairSync } from 'node:crypto';
import { signCheckpoint, verifierKeyOf } from '../../services/shared/src/integrity/checkpoint-signer.js';
import { consistencyRanges, coverRanges, proofOf } from '../../services/shared/src/integrity/proof-ranges.js';
import {
  leafEventOf,
  leafHashOf,
  parseVerifierKey,
  rootOf,
  type ListedCheckpoint,
  type WindowProof,
} from '../../packages/integrity-verifier/src/index.js';

export const ORIGIN = 'audit.example.test/tenants/acme';
export const key = { name: 'audit.example.test-1', privateKey: generateKeyPairSync('ed25519').privateKey };
export const keys = [parseVerifierKey(verifierKeyOf(key))!];
export const T0 = Date.UTC(2026, 10, 1);
const iso = (ms: number) => new Date(ms).toISOString();
export const row = (i: number) => ({
  event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  timestamp: iso(T0 + i * 1000),
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
});
export const rows = Array.from({ length: 20 }, (_, i) => row(i));
export const hashes = rows.map((r) => leafHashOf(leafEventOf(r)));
export const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
export const subtree = (s: { level: number; index: number }) =>
  rootOf(hashes.slice(s.index * 2 ** s.level, (s.index + 1) * 2 ** s.level));

export const note = (size: number, root = rootOf(hashes.slice(0, size))) =>
  signCheckpoint({ origin: ORIGIN, size, root, time: T0 }, key);
export function listed(sizes: number[]): ListedCheckpoint[] {
  return sizes.map((size, i) => ({
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
}
/** The window proof of the events with index in [from, to), in a checkpoint of `size`: the rest are later. */
export function windowProof(from: number, to: number, size: number): WindowProof {
  const all = [...Array(to - from).keys()].map((i) => i + from);
  const indices = all.filter((i) => i < size);
  const later = all.filter((i) => i >= size).map((i) => rows[i]!.event_id);
  return {
    tree_size: size,
    since: iso(T0 + from * 1000),
    until: iso(T0 + to * 1000),
    leaves: indices.map((i) => ({
      event_id: rows[i]!.event_id,
      leaf_index: i,
      timestamp: rows[i]!.timestamp,
      leaf_hash: b64(hashes[i]!),
    })),
    hashes: proofOf(coverRanges(indices, size), subtree).map(b64),
    later,
  };
}

/** One offline check's input, as the API's answers would make it. */
export interface TrailScenario {
  name: string;
  rows: unknown[];
  proofs: WindowProof[];
  checkpoints: ListedCheckpoint[];
  complete: boolean;
  truncated: boolean;
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
  const dropped = windowProof(4, 10, 12);
  dropped.leaves.splice(2, 1);
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
    { name: 'truncated', rows: rows.slice(7, 10).reverse(), ...base, truncated: true },
    { name: 'partial', rows: [rows[5]], ...base, complete: false },
    { name: 'bad signature', rows: window, ...base, checkpoints: badSignature },
    { name: 'fork', rows: window, ...base, checkpoints: fork },
    { name: 'proof without a leaf', rows: window, ...base, proofs: [dropped] },
  ];
}
