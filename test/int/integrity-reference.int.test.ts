import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  leafHashOf,
  parseVerifierKey,
  rootOf,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
  type LeafEvent,
} from '../../packages/integrity-verifier/src/index.js';
import { signCheckpoint, verifierKeyOf } from '../../services/shared/src/integrity/checkpoint-signer.js';
import {
  consistencyRanges,
  inclusionRanges,
  proofOf,
  type Subtree,
} from '../../services/shared/src/integrity/proof-ranges.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const dir = mkdtempSync(join(tmpdir(), 'integrity-reference-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** docs/integrity.md's Python block, as the file the document names, beside nothing else. */
function referenceModule(): void {
  const doc = readFileSync(join(ROOT, 'docs/integrity.md'), 'utf8');
  const blocks = [...doc.matchAll(/```python integrity\.py\n([\s\S]*?)```/g)];
  if (blocks.length !== 1) throw new Error('docs/integrity.md must hold one integrity.py block');
  writeFileSync(join(dir, 'integrity.py'), blocks[0]![1]!);
}

async function python(): Promise<string> {
  const { stdout } = await run(
    'bash',
    [
      '-c',
      'source scripts/python-venv.sh && ensure_venv .data/venv-integrity test/support/integrity-reference/requirements.txt >&2 && echo "$VENV_BIN"',
    ],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  return `${stdout.trim()}/python`;
}

// Events whose text runs through what UTF-8 and the length prefixes must get right.
const TEXTS = ['', 'a', 'é', '日本語', '😀 emoji', 'x'.repeat(300), 'tab\there', '"quoted"'];
const event = (i: number): LeafEvent => ({
  event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  timestamp: 1795000000000 + i * 997,
  tenant_id: 'acme',
  action: i % 2 ? 'phi.read' : 'admin.key.create',
  user_id: `user-${TEXTS[i % TEXTS.length]}`,
  user_role: TEXTS[(i + 1) % TEXTS.length]!,
  resource_type: 'claim',
  resource_id: TEXTS[(i + 2) % TEXTS.length]!,
  fields_accessed: i % 3 ? '[]' : '["dob","ssn"]',
  phi_involved: i % 3 === 0,
  source_ip: i % 2 ? '203.0.113.7' : '2001:db8::1',
  user_agent: TEXTS[(i + 3) % TEXTS.length]!,
  justification: '',
  success: i % 5 !== 0,
  details: JSON.stringify({ n: i, text: TEXTS[i % TEXTS.length] }),
});

const flip = (h: Uint8Array) => Uint8Array.from(h, (v, i) => (i === 0 ? v ^ 1 : v));

function cases() {
  const events = Array.from({ length: 70 }, (_, i) => event(i));
  const leaves = events.map(leafHashOf);
  const subtree = (s: Subtree) => rootOf(leaves.slice(s.index * 2 ** s.level, (s.index + 1) * 2 ** s.level));
  const root = (n: number) => rootOf(leaves.slice(0, n));
  const inclusion = [];
  const consistency = [];
  for (let size = 1; size <= events.length; size += size < 20 ? 1 : 7) {
    for (let index = 0; index < size; index++) {
      const proof = proofOf(inclusionRanges(index, size), subtree);
      const c = { leaf: leaves[index]!, index, size, proof, root: root(size) };
      inclusion.push(c, { ...c, leaf: flip(c.leaf) });
      if (proof.length > 0) inclusion.push({ ...c, proof: [flip(proof[0]!), ...proof.slice(1)] });
    }
    for (let first = 0; first <= size; first++) {
      const proof = proofOf(consistencyRanges(first, size), subtree);
      const c = { first, second: size, proof, firstRoot: root(first), secondRoot: root(size) };
      consistency.push(c);
      if (proof.length > 0)
        consistency.push({ ...c, proof: proof.slice(0, -1) }, { ...c, firstRoot: flip(c.firstRoot) });
    }
  }
  const key = { name: 'audit.example.com-1', privateKey: generateKeyPairSync('ed25519').privateKey };
  const other = { name: 'audit.example.com-2', privateKey: generateKeyPairSync('ed25519').privateKey };
  const note = signCheckpoint(
    { origin: 'audit.example.com/tenants/acme', size: 70, root: root(70), time: 1795000000123 },
    key,
  );
  const checkpoints = [
    { note, keys: [verifierKeyOf(key)] },
    { note, keys: [verifierKeyOf(other), verifierKeyOf(key)] },
    { note, keys: [verifierKeyOf(other)] },
    { note: note.replace('\n70\n', '\n71\n'), keys: [verifierKeyOf(key)] },
    {
      note: signCheckpoint({ origin: 'o', size: 0, root: root(0), time: 0 }, other),
      keys: [verifierKeyOf(other)],
    },
  ];
  return { events, leaves, inclusion, consistency, checkpoints };
}

describe("docs/integrity.md's Python reference", () => {
  it('agrees with the TypeScript on leaves, roots, every proof, tampered proofs and checkpoints', async () => {
    referenceModule();
    const c = cases();
    const input = JSON.stringify({
      events: c.events,
      inclusion: c.inclusion.map((x) => ({
        ...x,
        leaf: hex(x.leaf),
        proof: x.proof.map(hex),
        root: hex(x.root),
      })),
      consistency: c.consistency.map((x) => ({
        ...x,
        proof: x.proof.map(hex),
        firstRoot: hex(x.firstRoot),
        secondRoot: hex(x.secondRoot),
      })),
      checkpoints: c.checkpoints,
    });
    const child = execFile(
      await python(),
      [join(ROOT, 'test/support/integrity-reference/run_cases.py'), dir],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    child.stdin!.end(input);
    const out = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (d: Buffer) => (text += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`python exited ${code}`))));
    });
    const answer = JSON.parse(out) as {
      leafHashes: string[];
      roots: string[];
      inclusion: boolean[];
      consistency: boolean[];
      checkpoints: ([string, number, string, string] | null)[];
    };
    expect(answer.leafHashes).toEqual(c.leaves.map(hex));
    expect(answer.roots).toEqual(Array.from({ length: 71 }, (_, n) => hex(rootOf(c.leaves.slice(0, n)))));
    const ours = c.inclusion.map((x) => verifyInclusion(x.leaf, x.index, x.size, x.proof, x.root));
    expect(answer.inclusion).toEqual(ours);
    expect(ours.filter(Boolean).length).toBeGreaterThan(0);
    expect(ours.filter((v) => !v).length).toBeGreaterThan(0);
    const consistent = c.consistency.map((x) =>
      verifyConsistency(x.first, x.second, x.proof, x.firstRoot, x.secondRoot),
    );
    expect(answer.consistency).toEqual(consistent);
    expect(consistent.filter((v) => !v).length).toBeGreaterThan(0);
    const checked = c.checkpoints.map((x) => {
      const r = verifyCheckpoint(
        x.note,
        x.keys.map((k) => parseVerifierKey(k)!),
      );
      return r.ok ? [r.checkpoint.origin, r.checkpoint.size, hex(r.checkpoint.root)] : null;
    });
    expect(checked.map((v) => v !== null)).toEqual([true, true, false, false, true]);
    expect(answer.checkpoints.map((v) => v?.slice(0, 3) ?? null)).toEqual(checked);
    expect(answer.checkpoints[0]![3]).toBe('2026-11-18T11:06:40.123+00:00');
  });
});
