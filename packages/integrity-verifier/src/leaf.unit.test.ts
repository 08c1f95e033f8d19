import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeLeaf, LEAF_FIELDS, LEAF_V2_FIELDS, leafEventOf, leafHashOf, type LeafEvent } from './leaf.js';

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

// docs/integrity.md's example of version 2: the same event with a patient and a purpose of use. Its bytes are
// spelled out by hand from the version 1 bytes: version byte 02, the same fifteen fields, then patient_id
// "p-1042", purpose_of_use "TREAT", recipient "", disclosure false and accounting_exclusion "". Its hash was
// computed by Python's hashlib from those bytes.
const EVENT_V2: LeafEvent = { ...EVENT, patient_id: 'p-1042', purpose_of_use: 'TREAT' };
const BYTES_V2 =
  '02' +
  BYTES.slice(2) +
  ['00000006' + '702d31303432', '00000005' + '5452454154', '00000000', '00', '00000000'].join('');
const HASH_V2 = 'ca422c4ca01a9cce6eee0acc48245a79356ddaed2dfb305d89c5cafb737ff6f5';
const DEFAULTS = {
  patient_id: '',
  purpose_of_use: '',
  recipient: '',
  disclosure: false,
  accounting_exclusion: '',
};

/**
 * The encoding spelled out field by field with Node's own UTF-8 encoder and a loop over the field lists: what
 * encodeLeaf's copying of short ASCII text, its reused buffer and its fields written one by one must give.
 */
function plain(e: LeafEvent): Buffer {
  const later = LEAF_V2_FIELDS.map(({ name, kind }) => ({
    kind,
    value: e[name] ?? (kind === 'flag' ? false : ''),
  }));
  const version2 = later.some(({ value }) => value !== '' && value !== false);
  const fields = [
    ...LEAF_FIELDS.map(({ name, kind }) => ({ kind, value: e[name] })),
    ...(version2 ? later : []),
  ];
  return Buffer.concat([
    Buffer.of(version2 ? 2 : 1),
    ...fields.map(({ kind, value }) => {
      if (kind === 'flag') return Buffer.of(value ? 1 : 0);
      const out = Buffer.alloc(kind === 'millis' ? 8 : 4);
      if (kind === 'millis') return (out.writeBigInt64BE(BigInt(value as number)), out);
      const text = Buffer.from(value as string, 'utf8');
      out.writeUInt32BE(text.length);
      return Buffer.concat([out, text]);
    }),
  ]);
}

describe('the leaf encoding', () => {
  it('is the documented bytes, and its hash the documented hash', () => {
    expect(hex(encodeLeaf(EVENT))).toBe(BYTES);
    expect(hex(leafHashOf(EVENT))).toBe('a4ef72332a0cde1be18e7936ad6543f49e5eb5c04e01a6d12ad5ebe1090ad410');
  });

  it("is version 2's documented bytes and hash for an event with a field of version 2 set", () => {
    expect(BYTES_V2.length / 2).toBe(234);
    expect(hex(encodeLeaf(EVENT_V2))).toBe(BYTES_V2);
    expect(hex(leafHashOf(EVENT_V2))).toBe(HASH_V2);
    expect(
      createHash('sha256')
        .update(Buffer.from(`00${BYTES_V2}`, 'hex'))
        .digest('hex'),
    ).toBe(HASH_V2);
  });

  it('is version 1, byte for byte, for an event whose fields of version 2 are all at their defaults', () => {
    expect(hex(encodeLeaf({ ...EVENT, ...DEFAULTS }))).toBe(BYTES);
    expect(hex(encodeLeaf({ ...EVENT_V2, ...DEFAULTS }))).toBe(BYTES);
  });

  it('changes the hash with any one field of version 2, also one set back to its default', () => {
    const changed = LEAF_V2_FIELDS.map(({ name, kind }) => ({
      ...EVENT,
      [name]: kind === 'flag' ? true : 'x',
    }));
    const hashes = [EVENT, EVENT_V2, ...changed].map((e) => hex(leafHashOf(e)));
    expect(new Set(hashes).size).toBe(hashes.length);
    // The default written out in version 2 is not the field left out: each is a leaf of its own.
    const back = [
      { ...EVENT_V2, patient_id: '' },
      { ...EVENT_V2, purpose_of_use: '' },
    ];
    for (const e of back) expect(hashes).not.toContain(hex(leafHashOf(e)));
    expect(hex(leafHashOf(back[0]!))).not.toBe(hex(leafHashOf(back[1]!)));
    // Text cannot move between the fields of version 2 either.
    expect(hex(leafHashOf({ ...EVENT, recipient: 'ab' }))).not.toBe(
      hex(leafHashOf({ ...EVENT, purpose_of_use: 'a', recipient: 'b' })),
    );
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
    const events: LeafEvent[] = [
      // The buffer grows in the middle of this one: what was written before must be kept.
      { ...EVENT, user_id: 'ü'.repeat(2000), user_role: 'r' },
      { ...EVENT, user_id: 'a'.repeat(64), user_role: 'b'.repeat(65), resource_id: 'é', action: 'x\u007f' },
      { ...EVENT, details: JSON.stringify({ note: '🧾ü\u0000'.repeat(30_000) }), justification: 'ok🧾' },
      EVENT,
      { ...EVENT, user_agent: '', source_ip: 'a'.repeat(63) + 'ü' },
      // Each field of version 2 alone (holding isVersion2, spelled out, to LEAF_V2_FIELDS), several at once, and the
      // buffer growing in the middle of them.
      ...LEAF_V2_FIELDS.map(({ name, kind }) => ({ ...EVENT, [name]: kind === 'flag' ? true : 'é🧾' })),
      {
        ...EVENT,
        ...DEFAULTS,
        recipient: 'Acme Insurance, Inc.',
        disclosure: true,
        accounting_exclusion: 'x',
      },
      { ...EVENT_V2, details: 'd'.repeat(5000), recipient: 'ü'.repeat(3000), accounting_exclusion: 'a' },
      { ...EVENT, ...DEFAULTS },
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
    expect(hex(encodeLeaf(EVENT_V2))).toBe(BYTES_V2);
  });

  it('refuses values it cannot encode exactly', () => {
    expect(() => encodeLeaf({ ...EVENT, resource_id: 'a\uD800' })).toThrow(/resource_id/);
    // A lone surrogate in short text that is not all ASCII, and in text too long to be copied unit by unit.
    expect(() => encodeLeaf({ ...EVENT, user_role: 'é\uDC00' })).toThrow(/user_role/);
    expect(() => encodeLeaf({ ...EVENT, details: 'a'.repeat(100) + '\uDC00' })).toThrow(/details/);
    expect(() => encodeLeaf({ ...EVENT, timestamp: 1.5 })).toThrow(/timestamp/);
    expect(() => encodeLeaf({ ...EVENT, success: 'yes' as unknown as boolean })).toThrow(/success/);
    // A field of version 2 of the wrong kind, null included, is refused rather than read as its default.
    expect(() => encodeLeaf({ ...EVENT, disclosure: 'false' as unknown as boolean })).toThrow(/disclosure/);
    expect(() => encodeLeaf({ ...EVENT, disclosure: null as unknown as boolean })).toThrow(/disclosure/);
    expect(() => encodeLeaf({ ...EVENT, patient_id: null as unknown as string })).toThrow(/patient_id/);
    expect(() => encodeLeaf({ ...EVENT, recipient: 0 as unknown as string })).toThrow(/recipient/);
    expect(() => encodeLeaf({ ...EVENT, accounting_exclusion: 'a\uD800' })).toThrow(/accounting_exclusion/);
  });

  it('reads an event as the API returns it, the fields of version 2 at their defaults where it has not got them', () => {
    const row = { ...EVENT, timestamp: '2026-11-18T11:06:40.123+00:00', ingested_at: 'ignored' };
    expect(leafEventOf(row)).toStrictEqual({ ...EVENT, ...DEFAULTS });
    expect(leafEventOf({ ...row, ...EVENT_V2, timestamp: row.timestamp })).toStrictEqual({
      ...DEFAULTS,
      ...EVENT_V2,
    });
    expect(() => leafEventOf({ ...row, timestamp: '2026-11-18T11:06:40+00:00' })).toThrow(/timestamp/);
    expect(() => leafEventOf({ ...row, phi_involved: 'true' })).toThrow(/phi_involved/);
    expect(() => leafEventOf({ ...row, disclosure: 'true' })).toThrow('disclosure: not a boolean');
    expect(() => leafEventOf({ ...row, patient_id: null })).toThrow('patient_id: not a string');
    expect(() => leafEventOf({ ...row, accounting_exclusion: 1 })).toThrow(
      'accounting_exclusion: not a string',
    );
  });
});
