import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeLeaf, LEAF_FIELDS, leafEventOf, leafHashOf, type LeafEvent } from './leaf.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// docs/integrity.md's example; its bytes and hash were computed by the Python reference there, not by this code.
const EVENT: LeafEvent = {
  event_id: '7700d1c0-76f0-4466-8b8d-348775962674',
  timestamp: 1795000000123,
  tenant_id: 'acme',
  action: 'phi.read',
  user_id: 'user-1',
  user_role: 'clinician',
  resource_type: 'claim',
  resource_id: 'clm_1',
  fields_accessed: '["dob","ssn"]',
  phi_involved: true,
  source_ip: '203.0.113.7',
  user_agent: 'portal/4.2',
  justification: 'treatment',
  success: true,
  details: '{"reason":"review","note":"é"}',
};
const BYTES =
  '010000002437373030643163302d373666302d343436362d386238642d333438373735393632363734000001a1ee565e7b00000004' +
  '61636d65000000087068692e7265616400000006757365722d3100000009636c696e696369616e00000005636c61696d0000000563' +
  '6c6d5f310000000d5b22646f62222c2273736e225d010000000b3230332e302e3131332e370000000a706f7274616c2f342e3200' +
  '00000974726561746d656e74010000001f7b22726561736f6e223a22726576696577222c226e6f7465223a22c3a9227d';

describe('the leaf encoding', () => {
  it('is the documented bytes, and its hash the documented hash', () => {
    expect(hex(encodeLeaf(EVENT))).toBe(BYTES);
    expect(hex(leafHashOf(EVENT))).toBe('a4ef72332a0cde1be18e7936ad6543f49e5eb5c04e01a6d12ad5ebe1090ad410');
  });

  it('tells apart events that differ in any field, also where text moves between fields', () => {
    const hashes = new Set([
      hex(leafHashOf(EVENT)),
      hex(leafHashOf({ ...EVENT, user_id: 'user-1c', user_role: 'linician' })),
      hex(leafHashOf({ ...EVENT, timestamp: EVENT.timestamp + 1 })),
      hex(leafHashOf({ ...EVENT, success: false })),
      hex(leafHashOf({ ...EVENT, details: '{"reason": "review","note":"é"}' })),
    ]);
    expect(hashes.size).toBe(5);
  });

  it('writes text of any length and script as UTF-8, before and after an event that needs a larger buffer', () => {
    // The encoding spelled out field by field with Node's own UTF-8 encoder: what encodeLeaf's copying of short
    // ASCII text and its reused buffer must give.
    const plain = (e: LeafEvent) =>
      Buffer.concat([
        Buffer.of(1),
        ...LEAF_FIELDS.map(({ name, kind }) => {
          const value = e[name];
          if (kind === 'flag') return Buffer.of(value ? 1 : 0);
          const out = Buffer.alloc(kind === 'millis' ? 8 : 4);
          if (kind === 'millis') return (out.writeBigInt64BE(BigInt(value as number)), out);
          const text = Buffer.from(value as string, 'utf8');
          out.writeUInt32BE(text.length);
          return Buffer.concat([out, text]);
        }),
      ]);
    const events: LeafEvent[] = [
      // The buffer grows in the middle of this one: what was written before must be kept.
      { ...EVENT, user_id: 'ü'.repeat(2000), user_role: 'r' },
      { ...EVENT, user_id: 'a'.repeat(64), user_role: 'b'.repeat(65), resource_id: 'é', action: 'x\u007f' },
      { ...EVENT, details: JSON.stringify({ note: '🧾ü\u0000'.repeat(30_000) }), justification: 'ok🧾' },
      EVENT,
      { ...EVENT, user_agent: '', source_ip: 'a'.repeat(63) + 'ü' },
      // The timestamp's two 32-bit halves, at the edges of each and of the safe integers.
      ...[
        0,
        -1,
        2 ** 32 - 1,
        2 ** 32,
        -(2 ** 32),
        -(2 ** 32) - 1,
        2 ** 53 - 1,
        -(2 ** 53 - 1),
        -1795000000123,
      ].map((timestamp) => ({ ...EVENT, timestamp })),
    ];
    for (const e of events) {
      expect(hex(encodeLeaf(e))).toBe(plain(e).toString('hex'));
      const hash = createHash('sha256').update(Buffer.of(0)).update(plain(e)).digest('hex');
      expect(hex(leafHashOf(e))).toBe(hash);
    }
    expect(hex(encodeLeaf(EVENT))).toBe(BYTES);
  });

  it('refuses values it cannot encode exactly', () => {
    expect(() => encodeLeaf({ ...EVENT, resource_id: 'a\uD800' })).toThrow(/resource_id/);
    // A lone surrogate in short text that is not all ASCII, and in text too long to be copied unit by unit.
    expect(() => encodeLeaf({ ...EVENT, user_role: 'é\uDC00' })).toThrow(/user_role/);
    expect(() => encodeLeaf({ ...EVENT, details: 'a'.repeat(100) + '\uDC00' })).toThrow(/details/);
    expect(() => encodeLeaf({ ...EVENT, timestamp: 1.5 })).toThrow(/timestamp/);
    expect(() => encodeLeaf({ ...EVENT, success: 'yes' as unknown as boolean })).toThrow(/success/);
  });

  it('reads an event as the API returns it', () => {
    const row = { ...EVENT, timestamp: '2026-11-18T11:06:40.123+00:00', ingested_at: 'ignored' };
    expect(leafEventOf(row)).toEqual(EVENT);
    expect(() => leafEventOf({ ...row, timestamp: '2026-11-18T11:06:40+00:00' })).toThrow(/timestamp/);
    expect(() => leafEventOf({ ...row, phi_involved: 'true' })).toThrow(/phi_involved/);
  });
});
