import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as node from './index.js';
import { COMMITTED_FIELDS, encodeLeaf, leafEventOf, leafHashOf, type LeafEvent } from './web.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// leaf.unit.test.ts's vector: docs/integrity.md's example, computed by the Python reference there.
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
// And its vector of version 2 (patient_id "p-1042", purpose_of_use "TREAT"), whose bytes it builds by hand.
const EVENT_V2: LeafEvent = { ...EVENT, patient_id: 'p-1042', purpose_of_use: 'TREAT' };
const BYTES_V2 = `02${BYTES.slice(2)}00000006702d31303432000000055452454154000000000000000000`;

/** What the Node entry says of an event: its bytes and leaf hash, or the TypeError it throws. */
function nodeLeaf(e: LeafEvent): { bytes: string; hash: string } | string {
  try {
    return { bytes: hex(node.encodeLeaf(e)), hash: hex(node.leafHashOf(e)) };
  } catch (err) {
    return (err as Error).message;
  }
}
async function webLeaf(e: LeafEvent): Promise<{ bytes: string; hash: string } | string> {
  try {
    return { bytes: hex(await encodeLeaf(e)), hash: hex(await leafHashOf(e)) };
  } catch (err) {
    return (err as Error).message;
  }
}

// Text of every kind: ASCII short and long (leaf.ts copies up to 64 units of ASCII itself), any code point, and
// now and then a lone surrogate, which both must refuse.
const text = fc.oneof(
  { arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 100, size: 'max' }), weight: 5 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 100 }), weight: 5 },
  {
    arbitrary: fc.string({ unit: fc.constantFrom('a', 'é', '🧾', '\uD800', '\uDC00'), maxLength: 4 }),
    weight: 1,
  },
);
// A field of version 2: often left out or at its default (an event of version 1), else any value.
const later = <T>(value: fc.Arbitrary<T>, fallback: T) =>
  fc.oneof(fc.constant(undefined), fc.constant(fallback), value);
const event: fc.Arbitrary<LeafEvent> = fc.record({
  event_id: text,
  timestamp: fc.oneof(fc.maxSafeInteger(), fc.integer()),
  tenant_id: text,
  action: text,
  user_id: text,
  user_role: text,
  resource_type: text,
  resource_id: text,
  fields_accessed: text,
  phi_involved: fc.boolean(),
  source_ip: text,
  user_agent: text,
  justification: text,
  success: fc.boolean(),
  details: text,
  patient_id: later(text, ''),
  purpose_of_use: later(text, ''),
  recipient: later(text, ''),
  disclosure: later(fc.boolean(), false),
  accounting_exclusion: later(text, ''),
  // Now and then a version 3 event: salts, some fields erased; a wrong length of either, which both must refuse.
  commitments: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 2 },
    {
      arbitrary: fc.record({
        salts: fc.oneof(
          { arbitrary: fc.uint8Array({ minLength: 128, maxLength: 128 }), weight: 9 },
          { arbitrary: fc.uint8Array({ maxLength: 130 }), weight: 1 },
        ),
        erased: fc
          .uniqueArray(fc.constantFrom(...COMMITTED_FIELDS), { maxLength: 3 })
          .chain((names) =>
            fc.tuple(
              ...names.map((name) =>
                fc.tuple(
                  fc.constant(name),
                  fc.oneof(
                    { arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }), weight: 9 },
                    { arbitrary: fc.uint8Array({ maxLength: 33 }), weight: 1 },
                  ),
                ),
              ),
            ),
          )
          .map((pairs) => new Map(pairs)),
      }),
      weight: 1,
    },
  ),
});

describe("the web entry's leaf encoding", () => {
  it('is the documented bytes, and its hash the documented hash', async () => {
    expect(hex(await encodeLeaf(EVENT))).toBe(BYTES);
    expect(hex(await leafHashOf(EVENT))).toBe(
      'a4ef72332a0cde1be18e7936ad6543f49e5eb5c04e01a6d12ad5ebe1090ad410',
    );
    expect(hex(await encodeLeaf(EVENT_V2))).toBe(BYTES_V2);
    expect(hex(await leafHashOf(EVENT_V2))).toBe(
      'ca422c4ca01a9cce6eee0acc48245a79356ddaed2dfb305d89c5cafb737ff6f5',
    );
  });

  it("gives the Node entry's bytes and leaf hash for any event, and its refusal of any it cannot encode", async () => {
    await fc.assert(
      fc.asyncProperty(event, async (e) => {
        expect(await webLeaf(e)).toEqual(nodeLeaf(e));
      }),
      { numRuns: 500 },
    );
    // The refusals one by one, each field's first: a lone surrogate, a fraction, a flag that is no boolean.
    for (const wrong of [
      { ...EVENT, resource_id: 'a\uD800' },
      { ...EVENT, details: 'a'.repeat(100) + '\uDC00' },
      { ...EVENT, timestamp: 1.5 },
      { ...EVENT, timestamp: 2 ** 53 },
      { ...EVENT, success: 'yes' as unknown as boolean },
      { ...EVENT, user_id: 7 as unknown as string, success: 'yes' as unknown as boolean },
      { ...EVENT, disclosure: 'no' as unknown as boolean },
      { ...EVENT, patient_id: null as unknown as string },
      { ...EVENT, recipient: 'a\uD800', accounting_exclusion: 1 as unknown as string },
      { ...EVENT, success: 'yes' as unknown as boolean, recipient: 7 as unknown as string },
    ]) {
      expect(await webLeaf(wrong)).toEqual(nodeLeaf(wrong));
      expect(await webLeaf(wrong)).toMatch(/^\w+: not /);
    }
  });

  it('hashes an event as the API returns it', async () => {
    const row = { ...EVENT, timestamp: '2026-11-18T11:06:40.123+00:00' };
    const salts = Buffer.alloc(128, 7).toString('base64');
    // `details` erased: its salt (the sixth 16 bytes) zeros.
    const erasedSalts = Buffer.alloc(128, 7).fill(0, 80, 96).toString('base64');
    const erased = { details: Buffer.alloc(32, 9).toString('base64') };
    for (const r of [
      row,
      { ...row, recipient: 'r', disclosure: true },
      { ...row, leaf_salts: salts },
      { ...row, leaf_salts: erasedSalts, details: null, erased },
    ])
      expect(hex(await leafHashOf(leafEventOf(r)))).toBe(hex(node.leafHashOf(node.leafEventOf(r))));
  });
});
