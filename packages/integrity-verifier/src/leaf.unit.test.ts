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
  commitments: undefined,
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

// docs/integrity.md's example of version 3: the version 2 example with the salts 0x00 to 0x7f. Its hash was
// computed by the Python reference there; the commitment of `user_id` by Python's hashlib.
const SALTS = Uint8Array.from({ length: 128 }, (_, i) => i);
const HASH_V3 = 'e9a9d3b88d90291d8c55970053cab7e1d2097a7ee38abdc9b7a88815c5070261';
const USER_COMMITMENT = '030730522272a6c2b9ef1606666e7b4d0d50ef277e3b4e295cf6afeb1bd62305';
const EVENT_V3: LeafEvent = { ...EVENT_V2, commitments: { salts: SALTS, erased: new Map() } };
const ROW_V3 = {
  ...EVENT_V2,
  timestamp: '2026-11-18T11:06:40.123+00:00',
  leaf_salts: Buffer.from(SALTS).toString('base64'),
};
const base64 = (h: string) => Buffer.from(h, 'hex').toString('base64');
/** ROW_V3 with `user_id` erased, as the API writes it: null, its salt zeros, its commitment in `erased`. */
const ERASED_ROW = {
  ...ROW_V3,
  user_id: null,
  leaf_salts: Buffer.from(SALTS.map((b, i) => (i < 16 ? 0 : b))).toString('base64'),
  erased: { user_id: base64(USER_COMMITMENT) },
};

describe('the leaf encoding of version 3', () => {
  it('is the documented hash; each committed field is SHA-256(0x10 || its number || its salt || its UTF-8)', () => {
    const bytes = encodeLeaf(EVENT_V3);
    expect(hex(leafHashOf(EVENT_V3))).toBe(HASH_V3);
    expect(hex(bytes.subarray(0, 1))).toBe('03');
    const user = createHash('sha256')
      .update(Buffer.from([0x10, 5]))
      .update(SALTS.subarray(0, 16))
      .update('user-1');
    expect(user.digest('hex')).toBe(USER_COMMITMENT);
    expect(hex(bytes)).toContain(`${hex(Buffer.from('phi.read'))}${USER_COMMITMENT}0000000963`);
    // Every field is there, those of version 2 at their defaults too: 380 bytes, the value of no committed one.
    expect(bytes.length).toBe(380);
    expect(Buffer.from(bytes).includes('user-1')).toBe(false);
    expect(hex(leafHashOf(leafEventOf(ROW_V3)))).toBe(HASH_V3);
  });

  it('is the same leaf with a field erased, its commitment standing for its value', () => {
    const row = ERASED_ROW;
    expect(hex(leafHashOf(leafEventOf(row)))).toBe(HASH_V3);
    // Erased with another commitment, or changed in any field, it is another leaf.
    const other = { ...row, erased: { user_id: base64('00'.repeat(32)) } };
    expect(hex(leafHashOf(leafEventOf(other)))).not.toBe(HASH_V3);
    for (const changed of [
      { ...row, resource_id: 'clm_2' },
      { ...row, action: 'phi.write' },
      { ...ROW_V3, user_id: 'user-2' },
      { ...ROW_V3, patient_id: '' },
      { ...ROW_V3, leaf_salts: Buffer.from(SALTS.map((b) => (b === 17 ? 18 : b))).toString('base64') },
    ])
      expect(hex(leafHashOf(leafEventOf(changed)))).not.toBe(HASH_V3);
  });

  it('refuses a row whose salts, erased fields or commitments are not as the API writes them', () => {
    const refusal = (row: Record<string, unknown>) => {
      try {
        leafHashOf(leafEventOf(row));
        return null;
      } catch (err) {
        expect(err).toBeInstanceOf(TypeError);
        return (err as Error).message;
      }
    };
    const erased = ERASED_ROW;
    expect(refusal(erased)).toBeNull();
    expect(refusal({ ...ROW_V3, erased: {} })).toBeNull();
    for (const [row, problem] of [
      [{ ...ROW_V3, leaf_salts: null }, /^leaf_salts: /],
      [{ ...ROW_V3, leaf_salts: Buffer.from(SALTS.subarray(1)).toString('base64') }, /^leaf_salts: /],
      [
        { ...ROW_V3, leaf_salts: `${ROW_V3.leaf_salts.slice(0, 4)}=${ROW_V3.leaf_salts.slice(5)}` },
        /^leaf_salts/,
      ],
      // The same bytes in other text: bits in the last character that the bytes have not got.
      [{ ...ROW_V3, leaf_salts: ROW_V3.leaf_salts.replace(/8=$/, '9=') }, /^leaf_salts: /],
      [{ ...erased, erased: { user_id: base64(USER_COMMITMENT).replace(/U=$/, 'V=') } }, /commitment is not/],
      // The salt goes with the value.
      [{ ...erased, leaf_salts: ROW_V3.leaf_salts }, /^leaf_salts: user_id is erased, so its salt is zeros/],
      // Erasures are of version 3 only.
      [
        { ...EVENT, timestamp: ROW_V3.timestamp, user_id: null, erased: {} },
        /^erased: only a row with leaf_salts/,
      ],
      [{ ...erased, erased: null }, /^erased: not an object/],
      [{ ...erased, erased: [] }, /^erased: not an object/],
      [{ ...erased, erased: { user_role: base64(USER_COMMITMENT) } }, /^erased: user_role is not/],
      [{ ...erased, erased: { user_id: base64('00'.repeat(31)) } }, /commitment is not/],
      [{ ...erased, user_id: 'user-1' }, /^user_id: erased, so null/],
      [{ ...ROW_V3, erased: { patient_id: base64(USER_COMMITMENT) } }, /^patient_id: erased, so null/],
      [{ ...ROW_V3, user_id: null }, /^user_id: /],
      [{ ...ROW_V3, details: 'a\uD800' }, /^details: not well-formed/],
    ] as const)
      expect(refusal(row)).toMatch(problem);
  });
});
