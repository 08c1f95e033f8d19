import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { uuidBytes, uuidOf } from '@audit/shared/integrity';
import type { NewLeaf } from '../domain/append-plan.js';
import { copyRows, keyOrder } from './leaves.copy.js';

/** COPY's binary rows read back: each row's fields, a null as null (the format's inverse, for the test only). */
function readRows(copy: Buffer): (Buffer | null)[][] {
  expect(copy.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
  const rows: (Buffer | null)[][] = [];
  let at = 19;
  for (let fields = copy.readInt16BE(at); fields !== -1; fields = copy.readInt16BE(at)) {
    at += 2;
    const row: (Buffer | null)[] = [];
    for (let f = 0; f < fields; f++) {
      const length = copy.readInt32BE(at);
      at += 4;
      row.push(length < 0 ? null : copy.subarray(at, (at += length)));
    }
    rows.push(row);
  }
  expect(at + 2).toBe(copy.length);
  return rows;
}

const int8 = (b: Buffer | null | undefined) => Number(b!.readBigInt64BE());
const leaves = (tenant: string, from: number, n: number, ts = 1_700_000_000_000): NewLeaf[] =>
  Array.from({ length: n }, (_, i) => ({
    tenant_id: tenant,
    leaf_index: from + i,
    event_id: randomUUID(),
    leaf_hash: Buffer.alloc(32, i),
    ts: ts + i,
  }));

describe('copyRows', () => {
  it("writes each leaf's key once and its tenant's tiles, as binary COPY rows", () => {
    const a = leaves('a', 5, 1500);
    const b = leaves('b', 0, 2, 2 ** 40);
    const { keys, tiles } = copyRows([...a, ...b], (tenant) => (tenant === 'a' ? '7' : '4294967301'));
    const keyRows = readRows(keys).map(([tree, id, index]) => [int8(tree), uuidOf(id!), int8(index)]);
    expect(keyRows).toHaveLength(1502);
    expect(new Set(keyRows.map((k) => JSON.stringify(k)))).toEqual(
      new Set([
        ...a.map((l) => JSON.stringify([7, l.event_id, l.leaf_index])),
        ...b.map((l) => JSON.stringify([4294967301, l.event_id, l.leaf_index])),
      ]),
    );
    // 1,500 keys are ordered by their ids' first 11 bits.
    const aKeys = keyRows.slice(0, 1500).map(([, id]) => parseInt((id as string).slice(0, 3), 16) >> 1);
    expect(aKeys).toEqual([...aKeys].sort((x, y) => x - y));
    const tileRows = readRows(tiles);
    expect(tileRows.map(([tree, first]) => [int8(tree), int8(first)])).toEqual([
      [7, 5],
      [7, 1029],
      [4294967301, 0],
    ]);
    const [, , hashes, ids, times, min, max] = tileRows[2]!;
    expect(hashes).toEqual(Buffer.concat([Buffer.alloc(32, 0), Buffer.alloc(32, 1)]));
    expect(ids).toEqual(Buffer.concat(b.map((l) => uuidBytes(l.event_id))));
    expect([times!.readBigInt64BE(0), times!.readBigInt64BE(8)]).toEqual([2n ** 40n, 2n ** 40n + 1n]);
    expect([int8(min), int8(max)]).toEqual([2 ** 40, 2 ** 40 + 1]);
  });
});

describe('keyOrder', () => {
  it('orders ids by as many of their first bits as they need, each once', () => {
    // First bytes ff00, 0010, 8000, 0001: four ids are told apart by their first two bits, equal ones kept in order.
    const ids = Buffer.concat(
      [
        [0xff, 0x00],
        [0x00, 0x10],
        [0x80, 0x00],
        [0x00, 0x01],
      ].map((first) => Buffer.from([...first, ...Array<number>(14).fill(0)])),
    );
    expect([...keyOrder(ids, 4)]).toEqual([1, 3, 2, 0]);
    expect([...keyOrder(ids, 1)]).toEqual([0]);
    expect([...keyOrder(Buffer.alloc(0), 0)]).toEqual([]);
  });
});
