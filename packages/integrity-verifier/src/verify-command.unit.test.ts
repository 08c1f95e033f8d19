import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { CSV_HEADER, csvRecord } from '../../../services/exporter/src/domain/csv-format.js';
import { signCheckpoint, verifierKeyOf } from '../../../services/shared/src/integrity/checkpoint-signer.js';
import { coverRanges, proofOf } from '../../../services/shared/src/integrity/proof-ranges.js';
import { CSV_COLUMNS, CSV_V2_COLUMNS } from './csv-rows.js';
import { leafEventOf, leafHashOf } from './leaf.js';
import { rootOf } from './merkle.js';
import { verifyCommand } from './verify-command.js';

const dir = mkdtempSync(join(tmpdir(), 'verify-command-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Three events, all in the window and in the one checkpoint; the files as the API gives them. Their fields of
// version 2 are at their defaults: leaves of version 1, as they were before those fields.
const key = { name: 'audit.example.test-1', privateKey: generateKeyPairSync('ed25519').privateKey };
const T0 = Date.UTC(2026, 10, 1);
const rows = [0, 1, 2].map((i) => ({
  event_id: `00000000-0000-4000-8000-00000000000${i}`,
  timestamp: new Date(T0 + i).toISOString(),
  tenant_id: 'acme',
  action: 'phi.read',
  user_id: 'u',
  user_role: 'r',
  resource_type: 'patient',
  resource_id: `p-${i}`,
  fields_accessed: '[]',
  phi_involved: true,
  source_ip: '203.0.113.7',
  user_agent: '',
  justification: '',
  success: true,
  details: '{}',
  patient_id: '',
  purpose_of_use: '',
  recipient: '',
  disclosure: false,
  accounting_exclusion: '',
}));
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  const bytes =
    typeof content === 'string' || content instanceof Uint8Array ? content : JSON.stringify(content);
  writeFileSync(path, bytes);
  return path;
};
const keys = file('keys.json', { keys: [{ verifier_key: verifierKeyOf(key) }] });

/** The checkpoint of a tree of the events (in `prefix`checkpoints.json), and its window proofs of some of them. */
function trailFiles(events: typeof rows, prefix = '') {
  const hashes = events.map((r) => leafHashOf(leafEventOf(r)));
  const size = events.length;
  const note = signCheckpoint({ origin: 'o/tenants/acme', size, root: rootOf(hashes), time: T0 }, key);
  const checkpoints = file(`${prefix}checkpoints.json`, {
    checkpoints: [{ tree_size: size, note, previous: null }],
  });
  const proofOfLeaves = (indices: number[]) =>
    file(`${prefix}window-${indices.join('-')}.json`, {
      tree_size: size,
      since: new Date(T0).toISOString(),
      until: new Date(T0 + size).toISOString(),
      leaves: indices.map((i) => ({
        event_id: events[i]!.event_id,
        leaf_index: i,
        timestamp: events[i]!.timestamp,
        leaf_hash: b64(hashes[i]!),
      })),
      hashes: proofOf(coverRanges(indices, size), (s) =>
        rootOf(hashes.slice(s.index * 2 ** s.level, (s.index + 1) * 2 ** s.level)),
      ).map(b64),
      later: [],
    });
  return { checkpoints, proofOfLeaves };
}
const { checkpoints, proofOfLeaves } = trailFiles(rows);
// How many columns the exporter's header has.
const headerColumns = CSV_HEADER.trimEnd().split(',').length;

async function command(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await verifyCommand(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}
const base = ['--keys', keys, '--checkpoints', checkpoints];

describe('audit-trail-integrity', () => {
  it('verifies an NDJSON export against a window proof in two pages, and prints what it checked', async () => {
    const ndjson = file('export.ndjson', `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const result = await command(
      ...base,
      '--proof',
      proofOfLeaves([0, 1]),
      '--proof',
      proofOfLeaves([2]),
      '--export',
      ndjson,
    );
    expect(result).toEqual({
      code: 0,
      out: '1 checkpoints verified, 0 links between them consistent; 3 rows against 3 leaves\nverified\n',
      err: '',
    });
  });

  it("reads an export job's gzipped NDJSON, and refuses a broken one with exit status 2", async () => {
    const lines = `${rows.map((r) => JSON.stringify(r)).join('\n')}\nnot json\n`;
    const gz = file('job.ndjson.gz', gzipSync(lines));
    const result = await command(...base, '--proof', proofOfLeaves([0, 1, 2]), '--export', gz);
    expect(result.code).toBe(1);
    expect(result.out).toContain('4 rows against 3 leaves');
    expect(result.out).toContain('row 4: not a JSON object\n');
    const broken = file('broken.ndjson.gz', gzipSync(lines).subarray(0, 40));
    expect((await command(...base, '--proof', proofOfLeaves([0, 1, 2]), '--export', broken)).code).toBe(2);
    // Bytes that are not UTF-8 would read as U+FFFD, which a field may hold: refused, on threads or not.
    const notUtf8 = Buffer.from(lines.replace('"u"', '"u\ufffd"'));
    notUtf8.set([0xc3, 0x28], notUtf8.indexOf('\ufffd'));
    for (const threads of ['0', '2']) {
      const result = await command(
        ...base,
        '--proof',
        proofOfLeaves([0, 1, 2]),
        '--export',
        file('bad.ndjson', notUtf8),
        '--threads',
        threads,
      );
      expect(result.code).toBe(2);
      expect(result.err).toContain('bad.ndjson: not UTF-8 text');
    }
    // A proof page, a JSON export and a keys file of one key a line, each with one byte that is not UTF-8.
    const spoilt = (name: string, text: string, at: string) => {
      const bytes = Buffer.from(text);
      bytes[bytes.indexOf(at)] = 0xff;
      return file(name, bytes);
    };
    const proofText = readFileSync(proofOfLeaves([0, 1, 2]), 'utf8');
    const keyLine = `${verifierKeyOf(key)}\n`;
    for (const argv of [
      [...base, '--proof', spoilt('bad-proof.json', proofText, rows[1]!.event_id), '--export', gz],
      [
        ...base,
        '--proof',
        proofOfLeaves([0, 1, 2]),
        '--export',
        spoilt('bad.json', JSON.stringify({ events: rows, truncated: false }), rows[1]!.event_id),
      ],
      ['--keys', spoilt('bad-keys.txt', keyLine, keyLine.slice(-4)), '--checkpoints', checkpoints],
    ]) {
      const result = await command(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err).toContain('not valid');
    }
  });

  it("reads an export job's CSV file, gzipped or not, and names its findings by record", async () => {
    const csv = CSV_HEADER + rows.map((r) => csvRecord(r)).join('');
    const plain = await command(
      ...base,
      '--proof',
      proofOfLeaves([0, 1, 2]),
      '--export',
      file('job.csv', `\ufeff${csv}`),
    );
    expect(plain).toEqual({
      code: 0,
      out: '1 checkpoints verified, 0 links between them consistent; 3 rows against 3 leaves\nverified\n',
      err: '',
    });
    const tampered =
      CSV_HEADER +
      csvRecord({ ...rows[0]!, details: '{"a":1}' }) +
      csvRecord(rows[1]!).replace(',true,', ',yes,') +
      'one,record,too,short\r\n' +
      csvRecord(rows[2]!) +
      '"not ended';
    const gz = file('job.csv.gz', gzipSync(tampered));
    const result = await command(
      ...base,
      '--proof',
      proofOfLeaves([0, 1, 2]),
      '--export',
      gz,
      '--threads',
      '2',
    );
    expect(result.code).toBe(1);
    expect(result.out).toContain('5 rows against 3 leaves');
    expect(result.out).toContain(`altered: event ${rows[0]!.event_id} (leaf 0)\n`);
    expect(result.out).toContain('row 2: phi_involved: missing or not a boolean\n');
    expect(result.out).toContain(`row 3: a record of 4 fields under a header of ${headerColumns}\n`);
    expect(result.out).toContain(`row 5: a record of 1 fields under a header of ${headerColumns}\n`);
    expect(result.out).toContain(`missing: event ${rows[1]!.event_id} (leaf 1)\n`);
    expect(result.out).toContain('NOT VERIFIED: 5 findings\n');
  });

  it('reads a CSV file with blank lines before its header and a column added after, refuses one it cannot trust', async () => {
    const proof = proofOfLeaves([0, 1, 2]);
    const later = `\r\n\r\n${CSV_HEADER.trimEnd()},later\r\n${rows.map((r) => csvRecord(r).replace(/\r\n$/, ',x\r\n')).join('')}`;
    const ok = await command(...base, '--proof', proof, '--export', file('later.csv', later));
    expect(ok.out).toContain('3 rows against 3 leaves');
    expect(ok.code).toBe(0);
    // A second column of a leaf field's name, holding the original, beside a changed one.
    const shadow =
      `${CSV_HEADER.trimEnd()},details\r\n` +
      rows
        .map((r) => csvRecord({ ...r, details: '{"changed":1}' }).replace(/\r\n$/, `,${r.details}\r\n`))
        .join('');
    const twice = await command(...base, '--proof', proof, '--export', file('shadow.csv', shadow));
    expect(twice.code).toBe(2);
    expect(twice.err).toContain('its header names "details" twice');
    const notUtf8 = Buffer.concat([
      Buffer.from(CSV_HEADER + csvRecord(rows[0]!)),
      Buffer.from([0xc3, 0x28, 0x0d, 0x0a]),
    ]);
    const bad = await command(...base, '--proof', proof, '--export', file('bad.csv', notUtf8));
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('bad.csv');
  });

  it('reads files written before the fields of version 2 and since, and finds those fields changed', async () => {
    // A trail whose second and third events have fields of version 2 set: leaves of version 2.
    const events = [
      rows[0]!,
      { ...rows[1]!, patient_id: 'p-1042', purpose_of_use: 'TREAT' },
      { ...rows[2]!, recipient: 'Acme "Insurance", Inc.', disclosure: true },
    ];
    const trail = trailFiles(events, 'v2-');
    const check = async (name: string, content: string) =>
      command(
        '--keys',
        keys,
        '--checkpoints',
        trail.checkpoints,
        '--proof',
        trail.proofOfLeaves([0, 1, 2]),
        '--export',
        file(name, content),
      );
    // RFC 4180 as the exporter writes it: a field with a comma, a quote or a line end quoted.
    const field = (v: unknown) =>
      /[",\r\n]/.test(String(v)) ? `"${String(v).replaceAll('"', '""')}"` : String(v);
    const csv = (columns: readonly string[], list: readonly Record<string, unknown>[]) =>
      [columns, ...list.map((e) => columns.map((c) => field(e[c])))]
        .map((r) => `${r.join(',')}\r\n`)
        .join('');
    const ndjson = (list: readonly object[]) => list.map((e) => `${JSON.stringify(e)}\n`).join('');
    const allColumns = [...CSV_COLUMNS, ...CSV_V2_COLUMNS];
    // The API's rows, and the files since: every event verifies.
    expect((await check('v2.ndjson', ndjson(events))).code).toBe(0);
    expect((await check('v2.json', JSON.stringify({ events, truncated: false }))).code).toBe(0);
    expect((await check('v2.csv', csv(allColumns, events))).code).toBe(0);
    expect((await check('v2-later.csv', csv([...allColumns, 'later'], events))).code).toBe(0);
    // Files of before, without the fields of version 2: the events that had none set verify, the others do not.
    const before = events.map((e) => Object.fromEntries(CSV_COLUMNS.map((c) => [c, e[c as keyof typeof e]])));
    for (const result of [
      await check('old.ndjson', ndjson(before)),
      await check('old.csv', csv(CSV_COLUMNS, before)),
      await check('old-later.csv', csv([...CSV_COLUMNS, 'later'], before)),
    ]) {
      expect(result.code).toBe(1);
      expect(result.out).toContain(`altered: event ${events[1]!.event_id} (leaf 1)\n`);
      expect(result.out).toContain(`altered: event ${events[2]!.event_id} (leaf 2)\n`);
      expect(result.out).toContain('NOT VERIFIED: 2 findings\n');
    }
    // A field of version 2 changed, also to its default, and a flag that is not one.
    const changed = [
      { ...events[0]!, recipient: 'x' },
      { ...events[1]!, patient_id: '' },
      { ...events[2]!, disclosure: 'yes' },
    ];
    const found = await check('changed.csv', csv(allColumns, changed));
    expect(found.out).toContain(`altered: event ${events[0]!.event_id} (leaf 0)\n`);
    expect(found.out).toContain(`altered: event ${events[1]!.event_id} (leaf 1)\n`);
    expect(found.out).toContain('row 3: disclosure: not a boolean\n');
    // A header with some of the fields of version 2 is no export's.
    const some = await check('some.csv', csv([...CSV_COLUMNS, 'patient_id'], events));
    expect(some.code).toBe(2);
    expect(some.err).toContain('its header has some of patient_id,');
  });

  it("reads a JSON export's envelope, its truncation included, and names each finding with exit status 1", async () => {
    // Truncated with two rows, far below the cap: the cut does not hold, so the older row is missing.
    const cut = file('cut.json', { events: [rows[2], rows[1]], count: 2, truncated: true });
    const cutResult = await command(...base, '--proof', proofOfLeaves([0, 1, 2]), '--export', cut);
    expect(cutResult.code).toBe(1);
    expect(cutResult.out).toContain(`missing: event ${rows[0]!.event_id} (leaf 0)\n`);
    const whole = file('whole.json', {
      events: [rows[2], { ...rows[0], user_id: 'x' }, 'text'],
      truncated: false,
    });
    const result = await command(...base, '--proof', proofOfLeaves([0, 1, 2]), '--export', whole);
    expect(result.code).toBe(1);
    expect(result.out).toContain(`altered: event ${rows[0]!.event_id} (leaf 0)\n`);
    expect(result.out).toContain('row 3: not a JSON object\n');
    expect(result.out).toContain(`missing: event ${rows[1]!.event_id} (leaf 1)\n`);
    expect(result.out).toContain('NOT VERIFIED: 3 findings\n');
  });

  it('takes every file a shell glob gives after a flag, and refuses an argument without one', async () => {
    const ndjson = file('globbed.ndjson', `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const globbed = await command(
      ...base,
      '--proof',
      proofOfLeaves([0, 1]),
      proofOfLeaves([2]),
      '--export',
      ndjson,
    );
    expect(globbed).toMatchObject({ code: 0, out: expect.stringContaining('verified\n') });
    const stray = await command(
      ...base,
      '--proof',
      proofOfLeaves([0, 1, 2]),
      '--export',
      ndjson,
      'more.json',
    );
    expect(stray).toMatchObject({ code: 2, err: expect.stringContaining('unexpected argument more.json') });
  });

  it('prints what a hostile file holds with its control characters escaped', async () => {
    const hostile = { ...rows[0]!, event_id: '\u001b[2J\u202eevil' };
    const ndjson = file(
      'hostile.ndjson',
      `${[hostile, rows[1], rows[2]].map((r) => JSON.stringify(r)).join('\n')}\n`,
    );
    const result = await command(...base, '--proof', proofOfLeaves([0, 1, 2]), '--export', ndjson);
    expect(result.code).toBe(1);
    expect([...result.out].filter((c) => c === '\u001b' || c === '\u202e')).toEqual([]);
    expect(result.out).toContain('\\u001b[2J\\u202eevil');
    const json = await command(...base, '--proof', proofOfLeaves([0, 1, 2]), '--export', ndjson, '--json');
    expect(json.out.includes('\u202e')).toBe(false);
    // Escaped, and still the same JSON: the hostile id comes back whole.
    expect(JSON.stringify(JSON.parse(json.out))).toContain(JSON.stringify(hostile.event_id).slice(1, -1));
    const named = await command('--keys', keys, '--checkpoints', file('\u001b[31m.json', '{'));
    expect(named.code).toBe(2);
    expect(named.err.includes('\u001b')).toBe(false);
  });

  it('reads a pretty-printed JSON export, whatever the order of its fields', async () => {
    const pretty = file('pretty.json', JSON.stringify({ truncated: false, count: 3, events: rows }, null, 2));
    const result = await command(...base, '--proof', proofOfLeaves([0, 1, 2]), '--export', pretty);
    expect(result).toMatchObject({ code: 0, out: expect.stringContaining('3 rows against 3 leaves') });
  });

  it('refuses unusable input with exit status 2 and the usage', async () => {
    for (const argv of [
      [],
      ['--keys', keys],
      [...base, '--export', 'x.json'],
      [...base, '--proof', proofOfLeaves([0, 1, 2]), '--export', dir],
      [...base, '--bogus'],
      ['--keys', file('bad-keys.txt', 'not a key\n'), '--checkpoints', checkpoints],
      ['--keys', keys, '--checkpoints', file('not-json.json', '{')],
      ['--keys', keys, '--checkpoints', join(dir, 'absent.json')],
      [...base, '--proof', file('no-page.json', { x: 1 }), '--export', checkpoints],
      [...base, '--proof', file('proof-not-json.json', '{'), '--export', checkpoints],
      // Pages are parsed as they are checked: the second is refused after the first was checked.
      [
        ...base,
        '--proof',
        proofOfLeaves([0, 1, 2]),
        '--proof',
        file('second.json', { x: 1 }),
        '--export',
        checkpoints,
      ],
      // And read as they are checked: the second is found absent after the first was checked.
      [
        ...base,
        '--proof',
        proofOfLeaves([0, 1, 2]),
        '--proof',
        join(dir, 'absent.json'),
        '--export',
        checkpoints,
      ],
      ['--keys', file('keys-not-json.json', '{"keys": ['), '--checkpoints', checkpoints],
      ['--keys', file('keys-wrong.json', { keys: [{ name: 'x' }] }), '--checkpoints', checkpoints],
      ['--keys', keys, '--checkpoints', file('checkpoints-object.json', { checkpoints: {} })],
      [
        ...base,
        '--proof',
        file('no-later.json', { tree_size: 3, since: null, until: null, leaves: [], hashes: [] }),
        '--export',
        checkpoints,
      ],
      [
        ...base,
        '--proof',
        file('null-leaves.json', {
          tree_size: 3,
          since: null,
          until: null,
          leaves: null,
          hashes: [],
          later: [],
        }),
        '--export',
        checkpoints,
      ],
    ]) {
      const result = await command(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err).toContain('usage: audit-trail-integrity');
    }
  });
});
