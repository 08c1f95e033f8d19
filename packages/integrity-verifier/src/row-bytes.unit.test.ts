import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowLeafOfBytes } from './row-bytes.js';
import { rowLeaf } from './row-leaf.js';

/** An event as the API wrote it before the fields of version 2, in its order of fields. */
const apiRow = (over: Record<string, unknown> = {}) => ({
  event_id: '599b93aa-9cde-4bbd-bed0-d8ebac59eb69',
  timestamp: '2026-11-01T00:08:19.999+00:00',
  action: 'phi.read',
  user_id: 'user-61',
  user_role: 'clinician',
  resource_type: 'claim',
  resource_id: 'res-4',
  fields_accessed: '["dob","ssn"]',
  phi_involved: false,
  tenant_id: 'acme',
  source_ip: '10.0.31.161',
  user_agent: 'agent/1 "quoted" \'single\' \\ \\t ü\t🧾\r\n\u0000',
  justification: '',
  success: true,
  details: '{"seq":4,"nested":{"ok":true,"text":"line\\n4"}}',
  ...over,
});
/** The fields of version 2 as the API writes them after `details`, some set. */
const V2 = {
  patient_id: 'p-1042',
  purpose_of_use: 'TREAT',
  recipient: '',
  disclosure: false,
  accounting_exclusion: '',
};

/** Salts as the API writes them: the base64 of 128 bytes. */
const SALTS = Buffer.from(Array.from({ length: 128 }, (_, i) => (i * 37) & 0xff)).toString('base64');

/** The row's leaf by both readers: JSON.parse and rowLeaf's, and the bytes' (undefined where it defers). */
function both(line: string | Buffer) {
  const bytes = Buffer.isBuffer(line) ? line : Buffer.from(line);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  return { slow: rowLeaf(parsed), fast: rowLeafOfBytes(bytes, 0, bytes.length) };
}

/** The bytes' leaf, where it gives one, is the one JSON.parse and rowLeaf give. */
function agrees(line: string | Buffer): boolean {
  const { slow, fast } = both(line);
  if (fast === undefined) return true;
  expect(fast).toEqual(slow);
  return true;
}

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', '\\', '"', '\\u0041', '\ud800', '\udc00x', '\u2028', '🧾', '\u0000'),
);

describe('the leaf of a row read from its bytes', () => {
  it('is the leaf JSON.parse and rowLeaf give, for rows of any text as the API writes them', () => {
    const keys = Object.keys(apiRow(V2));
    // Rows written before the fields of version 2 and since, with salts (version 3) or without, each field of any
    // text, the flag of any value.
    const row = fc.record({
      since: fc.boolean(),
      salted: fc.boolean(),
      over: fc.dictionary(fc.constantFrom(...keys), text),
      disclosure: fc.option(fc.boolean(), { nil: undefined }),
    });
    fc.assert(
      fc.property(row, ({ since, salted, over, disclosure }) => {
        const flag = disclosure === undefined ? {} : { disclosure };
        const salts = salted ? { leaf_salts: SALTS } : {};
        const line = JSON.stringify(apiRow({ ...(since ? V2 : {}), ...over, ...flag, ...salts }));
        const { slow, fast } = both(line);
        // Every row whose text is well formed is read from its bytes, escapes and all, but in its event id (the
        // API's are UUIDs): its text is kept, and JSON.parse makes it.
        const plainId = JSON.stringify(over.event_id ?? '').length === (over.event_id ?? '').length + 2;
        if (Object.values(over).every((t) => !/\p{Cs}/u.test(t)) && plainId && typeof slow !== 'string')
          expect(fast).toBeDefined();
        return agrees(line);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes fields in any order, other keys of strings and flags, and a carriage return at the end', () => {
    for (const row of [
      apiRow(),
      apiRow(V2),
      apiRow({ ...V2, patient_id: '', disclosure: true }),
      apiRow({ ...V2, leaf_salts: SALTS }),
    ]) {
      const reversed = Object.fromEntries(Object.entries(row).reverse());
      for (const line of [
        JSON.stringify(reversed),
        JSON.stringify({ ...row, extra: 'x', more: true }),
        JSON.stringify({ extra: false, ...row }),
        `${JSON.stringify(row)}\r`,
      ]) {
        const { slow, fast } = both(line);
        expect(fast).toEqual(slow);
        expect(fast).toBeDefined();
      }
    }
  });

  it('reads a row without the fields of version 2, or with them all at their defaults, as one leaf of version 1', () => {
    const leaf = (row: object) => both(JSON.stringify(row)).fast;
    const defaults = {
      patient_id: '',
      purpose_of_use: '',
      recipient: '',
      disclosure: false,
      accounting_exclusion: '',
    };
    expect(leaf(apiRow(defaults))).toEqual(leaf(apiRow()));
    expect(leaf(apiRow({ patient_id: '' }))).toEqual(leaf(apiRow()));
    // Any one of them set is a leaf of version 2, an escape too, which stands for one byte at least.
    const set = [
      { patient_id: 'p' },
      { recipient: '\u0000' },
      { disclosure: true },
      { accounting_exclusion: '"' },
    ];
    const hashes = [apiRow(), ...set.map((over) => apiRow({ ...defaults, ...over }))].map((row) => {
      const { slow, fast } = both(JSON.stringify(row));
      expect(fast).toEqual(slow);
      return Buffer.from(fast!.hash).toString('hex');
    });
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('leaves to JSON.parse what it does not take, whatever JSON.parse makes of it', () => {
    const line = JSON.stringify(apiRow());
    for (const other of [
      ` ${line}`,
      `${line} `,
      line.replace('{"event_id"', '{ "event_id"'),
      line.replace('"success":true', '"success": true'),
      line.replace('"success":true', '"success":1'),
      line.replace('"success":true', '"success":"true"'),
      line.replace('"action":"phi.read"', '"action":null'),
      line.replace('"action":"phi.read"', '"action":"phi.read","action":"phi.write"'),
      line.replace('"action":"phi.read"', '"act\\u0069on":"phi.read"'),
      line.replace('"action":"phi.read"', '"action":"phi.read","n":1'),
      line.replace('"action":"phi.read"', '"action":"phi.read","o":{}'),
      line.replace('"action":"phi.read",', ''),
      line.replace('"phi_involved":false', '"phi_involved":"false"'),
      `${line.slice(0, -1)},"recipient":"a","recipient":""}`,
      line.replace('+00:00', 'Z'),
      line.replace('2026-11-01', '2026-02-30'),
      line.replace('2026-11-01', '2026-11-0\\u0031'),
      line.replace('599b93aa', '599b\\u0039'),
      line.replace('phi.read', 'phi\\ud800'),
      line.replace('phi.read', 'phi\\udc00\\ud800'),
      line.replace('phi.read', 'phi\\ud83d\\ude00'),
      line.replace('phi.read', 'phi\\x'),
      line.replace('phi.read', 'phi\\u00e'),
      line.replace('phi.read', 'phi\tread'),
      `${line}}`,
      `${line},`,
      line.slice(0, -1),
      `${line}\r\r`,
    ]) {
      expect(agrees(other), other).toBe(true);
    }
  });

  it('reads a row of version 3 with its salts, with or without the fields of version 2, wherever they stand', () => {
    for (const row of [
      { ...apiRow(V2), leaf_salts: SALTS },
      { leaf_salts: SALTS, ...apiRow(V2) },
      { ...apiRow(), leaf_salts: SALTS },
      { ...apiRow({ user_id: '', details: 'x'.repeat(5000), justification: 'ü\\n' }), leaf_salts: SALTS },
    ]) {
      const { slow, fast } = both(JSON.stringify(row));
      expect(fast).toBeDefined();
      expect(fast).toEqual(slow);
    }
    // Other salts, another leaf.
    const other = Buffer.alloc(128, 5).toString('base64');
    expect(both(JSON.stringify({ ...apiRow(), leaf_salts: other })).fast!.hash).not.toEqual(
      both(JSON.stringify({ ...apiRow(), leaf_salts: SALTS })).fast!.hash,
    );
  });

  it('leaves to JSON.parse salts not as the API writes them, and a row with erased fields', () => {
    // The last character's two low bits, which the bytes have not got, set: other text for the same bytes.
    const lastBits = `${SALTS.slice(0, -2)}${SALTS.at(-2) === 'B' ? 'C' : 'B'}=`;
    for (const row of [
      { ...apiRow(), leaf_salts: SALTS, erased: {} },
      { ...apiRow(), leaf_salts: 'not base64' },
      { ...apiRow(), leaf_salts: Buffer.alloc(127).toString('base64') },
      { ...apiRow(), leaf_salts: lastBits },
      { ...apiRow(), leaf_salts: true },
    ]) {
      const { slow, fast } = both(JSON.stringify(row));
      expect(fast).toBeUndefined();
      expect(slow).toEqual(rowLeaf(row));
    }
    expect(typeof rowLeaf({ ...apiRow(), leaf_salts: lastBits })).toBe('string');
    // An escape in the salts' text: JSON.parse reads it as the same characters, which this reader leaves to it.
    const escaped = JSON.stringify({ ...apiRow(), leaf_salts: SALTS }).replace(
      SALTS,
      SALTS.replace('/', '\\/'),
    );
    expect(SALTS).toContain('/');
    const { slow, fast } = both(escaped);
    expect(fast).toBeUndefined();
    expect(typeof slow).toBe('object');
  });

  it('leaves to JSON.parse a field of version 2 of the wrong kind, which the leaf refuses', () => {
    const line = JSON.stringify(apiRow());
    for (const [name, value] of [
      ['disclosure', '"true"'],
      ['disclosure', 'null'],
      ['patient_id', 'null'],
      ['patient_id', '1'],
      ['recipient', '{}'],
      ['accounting_exclusion', 'false'],
      ['purpose_of_use', '"\\ud800"'],
    ]) {
      const { slow, fast } = both(`${line.slice(0, -1)},"${name}":${value}}`);
      expect(fast).toBeUndefined();
      expect(slow).toMatch(new RegExp(`^${name}: not `));
    }
  });

  it('never gives a leaf JSON.parse and rowLeaf would not, for rows edited at random', () => {
    const pieces = [
      '"',
      '\\',
      '\\u',
      'd800',
      'dc00',
      '{',
      '}',
      ':',
      ',',
      ' ',
      '\r',
      '\t',
      'true',
      'false',
      '0',
      'é',
    ];
    const bases = [
      JSON.stringify(apiRow()),
      JSON.stringify(apiRow({ ...V2, disclosure: true })),
      JSON.stringify(apiRow({ ...V2, leaf_salts: SALTS })),
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...bases),
        fc.array(fc.tuple(fc.nat(bases[1]!.length), fc.nat(3), fc.constantFrom(...pieces)), { maxLength: 4 }),
        (base, edits) => {
          let line = base;
          for (const [at, cut, piece] of edits) line = line.slice(0, at) + piece + line.slice(at + cut);
          const bytes = Buffer.from(line);
          return !isUtf8(bytes) || agrees(bytes);
        },
      ),
      { numRuns: 20000 },
    );
  });
});
