import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type AuditEventRecord } from '@audit/shared/contract';
import { leafHashOf, parseVerifierKey, rootOf, signCheckpoint, verifierKeyOf } from '@audit/shared/integrity';
import { sampleRecord } from '@audit/shared/test-support';
import { checkCheckpoints, compareRows } from './trail-audit.js';

async function* from<T>(items: readonly T[]) {
  yield* items;
}
const all = async <T>(findings: AsyncGenerator<T>) => {
  const out: T[] = [];
  for await (const f of findings) out.push(f);
  return out;
};

const events = Array.from({ length: 8 }, (_, i) => sampleRecord({ resource_id: `r${i}` }));
const leaves = events.map((e, i) => ({
  event_id: e.event_id,
  leaf_index: i,
  leaf_hash: leafHashOf(e),
  ts: e.timestamp,
}));
const byId = <T extends { event_id: string }>(items: T[]) =>
  [...items].sort((a, b) => (a.event_id < b.event_id ? -1 : 1));
const rowOf = (e: AuditEventRecord) => ({ event_id: e.event_id, hash: leafHashOf(e) });

describe('compareRows', () => {
  it('finds nothing when every leaf has its rows, a re-insert not merged yet included', async () => {
    const rows = byId([...events.map(rowOf), rowOf(events[3]!)]);
    expect(await all(compareRows(from(rows), from(byId(leaves))))).toEqual([]);
  });

  it('names a changed row, a deleted one and a forged one, with their leaves', async () => {
    const forged = sampleRecord();
    const rows = byId([
      ...events
        .filter((_, i) => i !== 5)
        .map((e, i) => (i === 2 ? rowOf({ ...e, user_id: 'mallory' }) : rowOf(e))),
      rowOf(forged),
    ]);
    const findings = await all(compareRows(from(rows), from(byId(leaves))));
    expect(findings).toHaveLength(3);
    expect(findings).toEqual(
      expect.arrayContaining([
        { kind: 'altered', event_id: events[2]!.event_id, leaf_index: 2 },
        { kind: 'missing', event_id: events[5]!.event_id, leaf_index: 5 },
        { kind: 'forged', event_id: forged.event_id },
      ]),
    );
  });

  it('counts a leaf without a row as purged where the policy accounts for it, and names the others missing', async () => {
    const rows = byId(events.filter((_, i) => i !== 1 && i !== 6).map(rowOf));
    const accounted = (leaf: { event_id: string }) => leaf.event_id === events[1]!.event_id;
    expect(await all(compareRows(from(rows), from(byId(leaves)), accounted))).toEqual(
      expect.arrayContaining([
        { kind: 'purged', event_id: events[1]!.event_id, leaf_index: 1 },
        { kind: 'missing', event_id: events[6]!.event_id, leaf_index: 6 },
      ]),
    );
  });

  it('names an event one of whose duplicate rows differs', async () => {
    const rows = byId([...events.map(rowOf), rowOf({ ...events[0]!, success: !events[0]!.success })]);
    expect(await all(compareRows(from(rows), from(byId(leaves))))).toEqual([
      { kind: 'altered', event_id: events[0]!.event_id, leaf_index: 0 },
    ]);
  });
});

describe('checkCheckpoints', () => {
  const key = { name: 'test-key', privateKey: generateKeyPairSync('ed25519').privateKey };
  const other = { name: 'test-key', privateKey: generateKeyPairSync('ed25519').privateKey };
  const keys = [parseVerifierKey(verifierKeyOf(key))!];
  const hashes = leaves.map((l) => l.leaf_hash);
  const origin = 'log/tenants/t';
  const note = (size: number, root = rootOf(hashes.slice(0, size)), signer = key, at = origin) => ({
    tree_size: size,
    note: signCheckpoint({ origin: at, size, root, time: 1_790_000_000_000 }, signer),
  });

  it('accepts checkpoints of the tree, signed, whatever chunks the leaves come in', async () => {
    const chunks = [hashes.slice(0, 3), hashes.slice(3)];
    expect(await all(checkCheckpoints(from(chunks), [note(8), note(2), note(5)], keys, origin))).toEqual([]);
  });

  it('names a checkpoint changed after signing, one by an unknown key, another origin, a fork and a size beyond the tree', async () => {
    const changed = { tree_size: 4, note: note(4).note.replace('time 2026', 'time 2027') };
    const findings = await all(
      checkCheckpoints(
        from([hashes]),
        [
          note(2, undefined, other),
          note(3, undefined, key, 'log/tenants/u'),
          changed,
          note(5, rootOf(hashes.slice(1, 6))),
          note(9),
        ],
        keys,
        origin,
      ),
    );
    expect(findings).toEqual([
      { kind: 'checkpoint', tree_size: 2, problem: 'signed by no known key' },
      { kind: 'checkpoint', tree_size: 3, problem: 'its origin is log/tenants/u, not log/tenants/t' },
      { kind: 'checkpoint', tree_size: 4, problem: 'bad signature' },
      {
        kind: 'checkpoint',
        tree_size: 5,
        problem: 'its root is not the root of the tree: it forks from the leaves',
      },
      { kind: 'checkpoint', tree_size: 9, problem: 'the tree has only 8 leaves' },
    ]);
  });
});
