// What an auditor holds for bench:integrity's verifier part, made in-process: an export of `count` rows as the
// API renders them, the window proof of them in pages of 10,000 leaves as GET /audit/integrity/proofs/window gives
// them, the one checkpoint they are proven in (signed), and its verifier key, written to files as
// docs/integrity.md "Offline verification" fetches them. The window's leaves sit in the middle of a larger tree
// (other events before and after), so that every page carries cover hashes as a real window does.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  formatTimestamp,
  leafSaltsText,
  validateBatch,
  type AuditEventRecord,
  type AuditEventView,
} from '@audit/shared/contract';
import { coverRanges, proofOf, signCheckpoint, verifierKeyOf } from '@audit/shared/integrity';
import {
  hashChildren,
  leafEventOf,
  leafHashOf,
  rootOf,
  type ListedCheckpoint,
  type WindowProof,
} from '@audit-trail/integrity-verifier';
import { makeEvent } from '../../test/support/events.js';

/** Leaves a window proof's page holds at most (the API's). */
const PAGE_LEAVES = 10_000;
const LOG_NAME = 'bench.integrity.local';
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const VERIFIER_PACKAGE = fileURLToPath(
  new URL('../../packages/integrity-verifier/tsconfig.json', import.meta.url),
);

export interface VerifierDataset {
  /** The checkpoints' origin, and the export's rows. */
  origin: string;
  rows: number;
  pages: number;
  /** Leaves of the tree the window is proven in, its own and the others around it. */
  treeSize: number;
  files: VerifierFiles;
}

export interface VerifierFiles {
  /** The export as NDJSON, newest first (the export's order). */
  export: string;
  keys: string;
  checkpoints: string;
  proofs: string[];
  /** The verifier package compiled (its `tsc` build), as an auditor runs it from npm. */
  compiled: string;
}

/** The event as the API and the export render a stored row (`toAuditEventView`'s fields and order). */
const viewOf = (r: AuditEventRecord): AuditEventView => ({
  event_id: r.event_id,
  timestamp: formatTimestamp(r.timestamp),
  action: r.action,
  user_id: r.user_id,
  user_role: r.user_role,
  resource_type: r.resource_type,
  resource_id: r.resource_id,
  fields_accessed: r.fields_accessed,
  phi_involved: r.phi_involved,
  tenant_id: r.tenant_id,
  source_ip: r.source_ip,
  user_agent: r.user_agent,
  justification: r.justification,
  success: r.success,
  details: r.details,
  patient_id: r.patient_id,
  purpose_of_use: r.purpose_of_use,
  recipient: r.recipient,
  disclosure: r.disclosure,
  accounting_exclusion: r.accounting_exclusion,
  ...(r.leaf_salts === '' ? {} : { leaf_salts: leafSaltsText(r.leaf_salts) }),
});

/** The tenant's events one millisecond apart from `since`, validated as ingest validates them. */
function events(tenant: string, count: number, since: number): AuditEventRecord[] {
  const out: AuditEventRecord[] = [];
  for (let i = 0; i < count; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - i) }, (_, j) =>
      makeEvent(tenant, i + j, since),
    );
    const result = validateBatch(batch, { clock: Date.now });
    if (!result.ok) throw new Error('bench events must be valid');
    out.push(...result.records);
  }
  return out;
}

/** Every complete subtree's hash, by level: level 0 the leaves, each next level the pairs of the one below. */
function subtreeLevels(leaves: Uint8Array[]): Uint8Array[][] {
  const levels = [leaves];
  for (let below = leaves; below.length >= 2;) {
    const level = Array.from({ length: Math.floor(below.length / 2) }, (_, i) =>
      hashChildren(below[2 * i]!, below[2 * i + 1]!),
    );
    levels.push(level);
    below = level;
  }
  return levels;
}

const b64 = (h: Uint8Array) => Buffer.from(h).toString('base64');

/** Makes the dataset, and writes its files into `dir`. */
export function verifierDataset(
  dir: string,
  count: number,
  others: { before: number; after: number },
): VerifierDataset {
  const tenant = 'bench-verifier';
  const since = Date.UTC(2026, 10, 1);
  const window = events(tenant, count, since);
  const rows = window.map(viewOf);
  const own = rows.map((r) => leafHashOf(leafEventOf(r as unknown as Record<string, unknown>)));
  const randomLeaves = (n: number) => Array.from({ length: n }, () => new Uint8Array(randomBytes(32)));
  const leaves = [...randomLeaves(others.before), ...own, ...randomLeaves(others.after)];
  const levels = subtreeLevels(leaves);
  const size = leaves.length;
  const origin = `${LOG_NAME}/tenants/${tenant}`;
  const key = { name: 'bench-integrity-verifier', privateKey: generateKeyPairSync('ed25519').privateKey };
  const time = Date.now();
  const note = signCheckpoint({ origin, size, root: rootOf(leaves), time }, key);
  const range = { since: formatTimestamp(since), until: formatTimestamp(since + count) };
  const proofs: WindowProof[] = [];
  for (let first = 0; first < count; first += PAGE_LEAVES) {
    const indices = Array.from(
      { length: Math.min(PAGE_LEAVES, count - first) },
      (_, i) => others.before + first + i,
    );
    const hashes = proofOf(coverRanges(indices, size), (s) => levels[s.level]![s.index]!);
    proofs.push({
      tree_size: size,
      ...range,
      leaves: indices.map((index) => {
        const row = rows[index - others.before]!;
        return {
          event_id: row.event_id,
          leaf_index: index,
          timestamp: row.timestamp,
          leaf_hash: b64(leaves[index]!),
        };
      }),
      hashes: hashes.map(b64),
      later: [],
    });
  }
  rows.reverse();
  const checkpoints: ListedCheckpoint[] = [{ tree_size: size, note, previous: null }];
  const files: VerifierFiles = {
    export: join(dir, 'export.ndjson'),
    keys: join(dir, 'keys.json'),
    checkpoints: join(dir, 'checkpoints.json'),
    proofs: proofs.map((_, i) => join(dir, `window-${i}.json`)),
    compiled: join(dir, 'verifier-dist'),
  };
  execFileSync(process.execPath, [TSC, '-p', VERIFIER_PACKAGE, '--outDir', files.compiled]);
  // ES modules, as the package's package.json says of them.
  writeFileSync(join(files.compiled, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(files.export, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  writeFileSync(files.keys, JSON.stringify({ keys: [{ verifier_key: verifierKeyOf(key) }] }));
  writeFileSync(files.checkpoints, JSON.stringify({ checkpoints }));
  proofs.forEach((p, i) => writeFileSync(files.proofs[i]!, JSON.stringify(p)));
  return { origin, rows: count, pages: proofs.length, treeSize: size, files };
}
