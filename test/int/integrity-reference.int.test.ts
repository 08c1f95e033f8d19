import { execFile } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  COMMITTED_FIELDS,
  encodeLeaf,
  keyHashOf,
  leafEventOf,
  leafHashOf,
  parseSignedNote,
  parseVerifierKey,
  rootOf,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
  signedNoteText,
  verifierKeyText,
  verifyCommand,
  type Finding,
  type LeafEvent,
  type TrailCheck,
} from '@audit-trail/integrity-verifier';
import { CSV_COLUMNS, CSV_HEADER, csvRecord } from '../../services/exporter/src/domain/csv-format.js';
import type { AuditEventView } from '../../services/shared/src/contract/audit-event/event-view.js';
import { ACCOUNTING_EXCLUSIONS } from '../../services/shared/src/contract/audit-event/disclosure.js';
import { csvField } from '../../services/shared/src/contract/csv-field.js';
import {
  rawPublicKey,
  signCheckpoint,
  verifierKeyOf,
  type CheckpointKey,
} from '../../services/shared/src/integrity/checkpoint-signer.js';
import {
  consistencyRanges,
  inclusionRanges,
  proofOf,
  type Subtree,
} from '../../services/shared/src/integrity/proof-ranges.js';
import { referencePython, runWith, writeReferenceModule } from '../support/python-reference.js';
import {
  checkScenario,
  erase,
  keys as trailKeys,
  makeTrailBefore,
  rowV3,
  T0,
  trailScenarios,
  type TrailScenario,
} from '../support/trail-fixture.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const dir = mkdtempSync(join(tmpdir(), 'integrity-reference-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Events whose text runs through what UTF-8 and the length prefixes must get right.
const TEXTS = ['', 'a', 'é', '日本語', '😀 emoji', 'x'.repeat(300), 'tab\there', '"quoted"'];
const PURPOSES = ['TREAT', 'HPAYMT', 'HRESCH', 'ETREAT', 'BTG', 'PUBHLTH', 'HOPERAT'];
const EXCLUSIONS = ['', ...ACCOUNTING_EXCLUSIONS];
/**
 * Version 2's fields of event `i` (docs/integrity.md "Leaves"), valid as ingest takes them (docs/ingest.md
 * "Disclosures"), by i modulo 8: none (0, 4) or all at their defaults (1), leaves of version 1; one of them set
 * (2: a patient, 3: a disclosure, 5: a purpose), or a disclosure with a patient, a purpose and a recipient (6, 7;
 * every exclusion, or none), leaves of version 2.
 */
function laterFields(i: number): Partial<LeafEvent> {
  const text = TEXTS[(i >> 3) % TEXTS.length]!;
  const purpose = PURPOSES[i % PURPOSES.length]!;
  const exclusion = EXCLUSIONS[((i >> 3) * 2 + (i & 1)) % EXCLUSIONS.length]!;
  const all = {
    patient_id: `mrn-${text}`,
    purpose_of_use: purpose,
    recipient: `Payer ${text}`,
    disclosure: true,
  };
  switch (i % 8) {
    case 1:
      return {
        patient_id: '',
        purpose_of_use: '',
        recipient: '',
        disclosure: false,
        accounting_exclusion: '',
      };
    case 2:
      return { patient_id: `mrn-${text}` };
    case 3:
      return { disclosure: true };
    case 5:
      return { purpose_of_use: purpose };
    case 6:
    case 7:
      return { ...all, accounting_exclusion: exclusion };
    default:
      return {};
  }
}
const event = (i: number): LeafEvent => {
  const later = laterFields(i);
  return {
    event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    timestamp: 1795000000000 + i * 997,
    tenant_id: 'acme',
    action: i % 2 ? 'phi.read' : 'admin.key.create',
    user_id: `user-${TEXTS[i % TEXTS.length]}`,
    user_role: TEXTS[(i + 1) % TEXTS.length]!,
    resource_type: 'claim',
    resource_id: TEXTS[(i + 2) % TEXTS.length]!,
    fields_accessed: i % 3 ? '[]' : '["dob","ssn"]',
    // A disclosure is of PHI.
    phi_involved: i % 3 === 0 || later.disclosure === true,
    source_ip: i % 2 ? '203.0.113.7' : '2001:db8::1',
    user_agent: TEXTS[(i + 3) % TEXTS.length]!,
    justification: '',
    success: i % 5 !== 0,
    details: JSON.stringify({ n: i, text: TEXTS[i % TEXTS.length] }),
    ...later,
  };
};

/** Any text, signed by the key as a note: checkpoints that are not well formed, for the refusals. */
function signText(body: string, key: CheckpointKey): string {
  const signature = new Uint8Array(sign(null, Buffer.from(body), key.privateKey));
  const keyHash = keyHashOf(key.name, rawPublicKey(key.privateKey));
  return signedNoteText(body, [{ keyName: key.name, keyHash, signature }]);
}

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
  const signed = parseSignedNote(note)!;
  const bad = { ...signed.signatures[0]!, signature: new Uint8Array(64) };
  const byOther = parseSignedNote(signText(signed.body, other))!.signatures[0]!;
  const witness = { keyName: 'witness', keyHash: Uint8Array.of(1, 2, 3, 4), signature: new Uint8Array(72) };
  const checkpoints = [
    { note, keys: [verifierKeyOf(key)] },
    { note, keys: [verifierKeyOf(other), verifierKeyOf(key)] },
    { note, keys: [verifierKeyOf(other)] },
    { note: note.replace('\n70\n', '\n71\n'), keys: [verifierKeyOf(key)] },
    {
      note: signCheckpoint({ origin: 'o', size: 0, root: root(0), time: 0 }, other),
      keys: [verifierKeyOf(other)],
    },
    // A cosignature of another kind by a key not given is ignored.
    { note: signedNoteText(signed.body, [...signed.signatures, witness]), keys: [verifierKeyOf(key)] },
    // A signature by a key given that does not verify fails the note, whatever else signed it.
    { note: signedNoteText(signed.body, [bad, ...signed.signatures]), keys: [verifierKeyOf(key)] },
    { note: signedNoteText(signed.body, [byOther, bad]), keys: [verifierKeyOf(other), verifierKeyOf(key)] },
  ];
  // Validly signed texts that are no checkpoint of ours: a signed note to Go, refused by ours and the Python.
  const base64Root = Buffer.from(root(70)).toString('base64');
  const time = 'time 2026-11-18T11:06:40.123+00:00';
  const formats = [
    ` audit.example.com/tenants/acme\n70\n${base64Root}\n${time}\n`,
    `o\n9007199254740992\n${base64Root}\n${time}\n`,
    `o\n070\n${base64Root}\n${time}\n`,
    `o\n70\n${base64Root.slice(0, 42)}B=\n${time}\n`,
    `o\n70\n${base64Root}\ntime 2026-13-40T11:06:40.123+00:00\n`,
    `o\n70\n${base64Root}\n${time}\nextra\n`,
    `o\t\n70\n${base64Root}\n${time}\n`,
  ].map((body) => ({ note: signText(body, key), keys: [verifierKeyOf(key)] }));
  return { events, leaves, inclusion, consistency, checkpoints, formats };
}

const c = cases();
// The cases as JSON: hashes in hex.
const hexCases = {
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
};
// The TypeScript's verdicts, which the other implementations must repeat.
const ours = {
  inclusion: c.inclusion.map((x) => verifyInclusion(x.leaf, x.index, x.size, x.proof, x.root)),
  consistency: c.consistency.map((x) =>
    verifyConsistency(x.first, x.second, x.proof, x.firstRoot, x.secondRoot),
  ),
  checkpoints: c.checkpoints.map((x) => {
    const r = verifyCheckpoint(
      x.note,
      x.keys.map((k) => parseVerifierKey(k)!),
    );
    return r.ok ? [r.checkpoint.origin, r.checkpoint.size, hex(r.checkpoint.root)] : null;
  }),
  formats: c.formats.map(
    (x) =>
      verifyCheckpoint(
        x.note,
        x.keys.map((k) => parseVerifierKey(k)!),
      ).ok,
  ),
};

/** A scenario's checkpoints and window proofs, as the command's files and the Python reference's input. */
type CsvCheck = Pick<TrailScenario, 'checkpoints' | 'proofs' | 'complete' | 'truncated'>;
const trailKeyTexts = trailKeys.map((k) => verifierKeyText(k.name, k.publicKey));
let csvFiles = 0;

/**
 * The command's exit code and findings on an export job's CSV file, which must be the Python reference's findings
 * on it (the problems' wording left out); or, for a file whose header the command refuses (exit code 2, no
 * findings), the Python reference's refusal of it too.
 */
async function bothOnCsv(s: CsvCheck, csv: string): Promise<{ code: number; ours: string[] }> {
  writeReferenceModule(dir);
  const file = (name: string, content: string) => {
    const path = join(dir, `${csvFiles++}-${name}`);
    writeFileSync(path, content);
    return path;
  };
  const argv = [
    ...['--keys', file('keys.txt', trailKeyTexts.join('\n'))],
    ...['--checkpoints', file('checkpoints.json', JSON.stringify({ checkpoints: s.checkpoints }))],
    ...s.proofs.flatMap((p, i) => ['--proof', file(`window-${i}.json`, JSON.stringify(p))]),
    ...['--export', file('job.csv', csv), '--json'],
    ...(s.complete ? [] : ['--partial']),
    ...(s.truncated ? ['--truncated'] : []),
  ];
  let out = '';
  const code = await verifyCommand(argv, { out: (t) => (out += t), err: (t) => (out += t) });
  const python = runWith(
    await referencePython(),
    [join(ROOT, 'test/support/integrity-reference/check_trail.py'), dir],
    // Only what the type names: a scenario's rows would stand for the file.
    JSON.stringify({
      checkpoints: s.checkpoints,
      proofs: s.proofs,
      complete: s.complete,
      truncated: s.truncated,
      csv,
      keys: trailKeyTexts,
    }),
  );
  if (code === 2) {
    expect(out).toMatch(/header/);
    await expect(python).rejects.toThrow(/not the header of an export job's CSV file/);
    return { code, ours: [] };
  }
  const ours = (JSON.parse(out) as TrailCheck).findings.map((f) => {
    const { problem: _problem, ...named } = f as Finding & { problem?: string };
    return JSON.stringify(named);
  });
  const theirs = JSON.parse(await python) as unknown[];
  expect(new Set(theirs.map((f) => JSON.stringify(f)))).toEqual(new Set(ours));
  expect(theirs).toHaveLength(ours.length);
  return { code, ours };
}

// The columns of a CSV file written before version 2's fields: those up to `details`.
const OLD_COLUMNS = CSV_COLUMNS.slice(0, CSV_COLUMNS.indexOf('details') + 1);
const OLD_HEADER = `${OLD_COLUMNS.join(',')}\r\n`;
/** A row as a record of such a file, its fields as csvRecord writes them. */
const oldRecord = (r: Record<string, unknown>) => {
  const fields = OLD_COLUMNS.map((name) => r[name]);
  return `${fields.map((v) => (typeof v === 'string' ? csvField(v) : String(v))).join(',')}\r\n`;
};
const altered = (r: { event_id: string }, leaf_index: number) =>
  JSON.stringify({ kind: 'altered', event_id: r.event_id, leaf_index });

/** An event as the API returns it: its time as the API's text. */
const rowOf = (e: LeafEvent): Record<string, unknown> => ({
  ...e,
  timestamp: new Date(e.timestamp).toISOString(),
});
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
/** A row's leaf hash in hex as the package reads it, or null for a row that is no event. */
function leafOfRow(row: unknown): string | null {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return null;
  try {
    return hex(leafHashOf(leafEventOf(row as Record<string, unknown>)));
  } catch {
    return null;
  }
}

/** Event `i`'s salts as a version 3 row. */
const saltsFor = (i: number) => b64(Uint8Array.from({ length: 128 }, (_, k) => (k * 7 + i) & 0xff));

/**
 * Export rows of every version (docs/integrity.md "Version 3"), each with the row before its erasure (itself where
 * nothing is erased): every fourth event has salts, and some of its committed fields erased.
 */
function leafRows(): { row: Record<string, unknown>; whole: Record<string, unknown> }[] {
  return c.events.slice(0, 24).map((e, i) => {
    const row = rowOf(e);
    if (i % 4 !== 3) return { row, whole: row };
    const whole = { ...row, leaf_salts: saltsFor(i) };
    return {
      row: erase(
        whole,
        COMMITTED_FIELDS.filter((_, k) => (i >> 2) & (1 << (k % 3))),
      ),
      whole,
    };
  });
}

const BASE64_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** The same bytes in other base64 text: bits in the last character that the bytes have not got. */
const otherText = (text: string) =>
  text.replace(
    /(.)(=+)$/,
    (_, digit: string, pad: string) => BASE64_DIGITS[BASE64_DIGITS.indexOf(digit) + 1]! + pad,
  );

/** Rows no verifier may take: each breaks one rule of docs/integrity.md "Leaves" and "Version 3". */
function refusedRows(rows: { row: Record<string, unknown>; whole: Record<string, unknown> }[]): unknown[] {
  const { row: erased, whole } = rows.find(({ row }) => Object.keys(row.erased ?? {}).length > 0)!;
  const [name] = Object.keys(erased.erased as object);
  const v3 = rows[3]!.whole;
  const salts = v3.leaf_salts as string;
  const commitment = b64(Buffer.alloc(32, 1));
  return [
    { ...erased, [name!]: 'back again' },
    { ...erased, erased: null },
    { ...erased, erased: [] },
    { ...erased, erased: { ...(erased.erased as object), user_role: commitment } },
    { ...erased, erased: { [name!]: b64(Buffer.alloc(31, 1)) } },
    { ...erased, erased: { [name!]: otherText((erased.erased as Record<string, string>)[name!]!) } },
    { ...erased, leaf_salts: whole.leaf_salts },
    { ...v3, erased: { patient_id: commitment } },
    { ...rowOf(c.events[0]!), erased: {} },
    { ...v3, leaf_salts: salts.slice(4) },
    { ...v3, leaf_salts: `${salts.slice(0, 8)}=${salts.slice(9)}` },
    { ...v3, leaf_salts: salts.replace(/=$/, '') },
    { ...v3, leaf_salts: otherText(salts) },
    { ...v3, leaf_salts: null },
    { ...v3, user_id: null },
    { ...v3, details: 'a\uD800' },
    { ...v3, patient_id: 7 },
    { ...v3, success: 'true' },
    { ...v3, timestamp: '2026-02-30T00:00:00.000Z' },
    [v3],
  ];
}

describe('the integrity formats, checked by other implementations', () => {
  it('are cases with verdicts of both kinds in every group', () => {
    for (const verdicts of [ours.inclusion, ours.consistency, ours.checkpoints.map((v) => v !== null)])
      expect(new Set(verdicts)).toEqual(new Set([true, false]));
    expect(ours.checkpoints.map((v) => v !== null)).toEqual([
      true,
      true,
      false,
      false,
      true,
      true,
      false,
      false,
    ]);
    expect(ours.formats.every((ok) => !ok)).toBe(true);
    // Leaves of both encodings, version 1 of events with and without version 2's fields.
    expect(c.events.map((e) => encodeLeaf(e)[0])).toEqual(
      c.events.map((_, i) => ([0, 1, 4].includes(i % 8) ? 1 : 2)),
    );
  });

  it("docs/integrity.md's Python reference names what the TypeScript names in every offline check", async () => {
    writeReferenceModule(dir);
    const scenarios = trailScenarios();
    const ours = scenarios.map((s) => {
      // The Python reference names what each finding is about, not the command's wording.
      return checkScenario(s).findings.map((f) => {
        const { problem: _problem, ...named } = f as Finding & { problem?: string };
        return named;
      });
    });
    const verifierKeys = trailKeys.map((k) => verifierKeyText(k.name, k.publicKey));
    const out = await runWith(
      await referencePython(),
      [join(ROOT, 'test/support/integrity-reference/check_trail.py'), dir],
      JSON.stringify(scenarios.map((s) => ({ ...s, keys: verifierKeys }))),
    );
    const theirs = JSON.parse(out) as unknown[][];
    scenarios.forEach((s, i) => {
      expect(new Set(theirs[i]!.map((f) => JSON.stringify(f))), s.name).toEqual(
        new Set(ours[i]!.map((f) => JSON.stringify(f))),
      );
      expect(theirs[i]!.length, s.name).toBe(ours[i]!.length);
    });
    // Every kind of finding was met.
    expect(new Set(ours.flat().map((f) => f.kind))).toEqual(
      new Set([
        'altered',
        'repeated',
        'forged',
        'outside',
        'row',
        'missing',
        'uncovered',
        'checkpoint',
        'proof',
      ]),
    );
  });

  it("docs/integrity.md's Python reference reads an export job's CSV file as the command does", async () => {
    writeReferenceModule(dir);
    const s = trailScenarios().find((t) => t.name === 'untouched')!;
    const [first, second, third, fourth] = s.rows as Parameters<typeof csvRecord>[0][];
    // After a blank line and a header with a column more: an altered row, a flag that is not one, a record short
    // of fields, one with a field more, a record of one empty field, and one whose resource has text after its
    // closing quote and ends in LF alone (read as Python reads it: the text belongs to the field).
    const csv =
      `\r\n${CSV_HEADER.trimEnd()},later\r\n` +
      [
        csvRecord({ ...first!, details: '{"a":"b, \\"c\\""}' }),
        csvRecord(second!).replace(',true,', ',1,'),
        'a,"b\r\nc",d\r\n',
        csvRecord(third!).replace(/\r\n$/, ',more,most\r\n'),
        '""\r\n',
        csvRecord(fourth!).replace(`,${fourth!.resource_id},`, `,"${fourth!.resource_id}"x,`),
      ]
        .map((r, i) => (i === 0 || i === 1 || i === 5 ? r.replace(/\r\n$/, i === 5 ? ',\n' : ',\r\n') : r))
        .join('') +
      // A blank line, a record with a quote inside an unquoted field that ends in CR alone, and a quote never closed.
      '\r\np"q,r\r"open,\r\nto the end';
    const { code, ours } = await bothOnCsv(s, csv);
    expect(code).toBe(1);
    expect(ours).toEqual(
      expect.arrayContaining([2, 3, 4, 5, 7, 8].map((row) => JSON.stringify({ kind: 'row', row }))),
    );
    expect(ours.filter((f) => f.includes('"altered"'))).toHaveLength(2);
  });

  it("docs/integrity.md's Python reference reads CSV files with or without version 2's columns", async () => {
    const s = trailScenarios().find((t) => t.name === 'untouched')!;
    const window = s.rows as AuditEventView[];
    // Leaves of both versions, and a recipient the file quotes.
    expect(new Set(window.map((r) => encodeLeaf(leafEventOf(r))[0]))).toEqual(new Set([1, 2]));
    expect(window.map(csvRecord).join('')).toMatch(/,"Payer 7, ""Claims"" — 1 Main St",true,/);
    expect(OLD_COLUMNS).toHaveLength(15);
    // An event of version 1 is written as before, and then its defaults.
    expect(csvRecord(window[0]!)).toBe(oldRecord(window[0]!).replace(/\r\n$/, ',,,,false,,\r\n'));

    // With version 2's columns: the export verifies, and a flag of theirs that is not one is a row's problem.
    expect(await bothOnCsv(s, CSV_HEADER + window.map(csvRecord).join(''))).toEqual({ code: 0, ours: [] });
    const badFlag = window.map((r, i) =>
      csvRecord(i === 3 ? { ...r, disclosure: 'yes' as unknown as boolean } : r),
    );
    expect(await bothOnCsv(s, CSV_HEADER + badFlag.join(''))).toEqual({
      code: 1,
      ours: [
        JSON.stringify({ kind: 'row', row: 4 }),
        JSON.stringify({ kind: 'missing', event_id: window[3]!.event_id, leaf_index: 7 }),
      ],
    });
    // A record written without them, under a header with them, is short of fields.
    const short = await bothOnCsv(
      s,
      CSV_HEADER + window.map((r, i) => (i === 2 ? oldRecord(r) : csvRecord(r))).join(''),
    );
    expect(short.ours).toContain(JSON.stringify({ kind: 'row', row: 3 }));

    // A file written before them, of a trail written before them: every event verifies, also under a column a later
    // exporter adds.
    const before = makeTrailBefore(Array.from({ length: 20 }, (_, i) => T0 + i * 1000));
    const old = { ...s, proofs: [before.windowProof(4, 10, 12)], checkpoints: before.listed([5, 12, 20]) };
    const oldRows = before.rows.slice(4, 10);
    expect(await bothOnCsv(old, OLD_HEADER + oldRows.map(oldRecord).join(''))).toEqual({ code: 0, ours: [] });
    const withLater =
      `${OLD_HEADER.trimEnd()},later\r\n` +
      oldRows.map((r) => oldRecord(r).replace(/\r\n$/, ',x\r\n')).join('');
    expect(await bothOnCsv(old, withLater)).toEqual({ code: 0, ours: [] });
    // The trail of today's events in such a file: those of version 1 verify, the others lost fields of their leaves.
    expect(await bothOnCsv(s, OLD_HEADER + window.map(oldRecord).join(''))).toEqual({
      code: 1,
      ours: [1, 3, 5].map((i) => altered(window[i]!, i + 4)),
    });
    // Some of version 2's columns, or all of them out of their order or place, make the file no export job's.
    const records = window.map(csvRecord).join('');
    for (const header of [
      `${OLD_HEADER.trimEnd()},patient_id\r\n`,
      CSV_HEADER.replace('purpose_of_use,recipient', 'recipient,purpose_of_use'),
      `${OLD_HEADER.trimEnd()},later,${CSV_HEADER.slice(OLD_HEADER.length)}`,
    ])
      expect(await bothOnCsv(s, header + records), header).toEqual({ code: 2, ours: [] });
  });

  it("docs/integrity.md's Python reference reads the salts of version 3 from a CSV file's leaf_salts column", async () => {
    // The window of the version 3 scenarios, nothing erased: the rows the service's export writes today.
    const s = trailScenarios().find((t) => t.name === 'version 3, fields erased')!;
    const window = Array.from({ length: 6 }, (_, k) => rowV3(k + 4)) as AuditEventView[];
    expect(new Set(window.map((r) => encodeLeaf(leafEventOf(r))[0]))).toEqual(new Set([3]));
    const records = window.map(csvRecord);
    expect(await bothOnCsv(s, CSV_HEADER + records.join(''))).toEqual({ code: 0, ours: [] });
    // Other salts are another leaf; without the column, no row is of version 3, and none verifies.
    const changed = records.with(
      2,
      records[2]!.replace(/(.)=\r\n$/, (_, c: string) => `${c === 'A' ? 'E' : 'A'}=\r\n`),
    );
    expect(await bothOnCsv(s, CSV_HEADER + changed.join(''))).toEqual({
      code: 1,
      ours: [altered(window[2]!, 6)],
    });
    const unsalted = records.map((r) => r.replace(/,[^,]*\r\n$/, '\r\n'));
    const v2Header = CSV_HEADER.replace(',leaf_salts', '');
    expect((await bothOnCsv(s, v2Header + unsalted.join(''))).ours).toEqual(
      window.map((r, k) => altered(r, k + 4)),
    );
    // The column anywhere but right after version 2's fields makes the file no export job's.
    expect(await bothOnCsv(s, `${v2Header.trimEnd()},later,leaf_salts\r\n` + records.join(''))).toEqual({
      code: 2,
      ours: [],
    });
  });

  it("docs/integrity.md's Python reference agrees on leaves, roots, every proof and checkpoint", async () => {
    writeReferenceModule(dir);
    const script = join(ROOT, 'test/support/integrity-reference/run_cases.py');
    const out = await runWith(
      await referencePython(),
      [script, dir],
      JSON.stringify({ events: c.events, ...hexCases, formats: c.formats }),
    );
    const answer = JSON.parse(out) as {
      leafHashes: string[];
      roots: string[];
      inclusion: boolean[];
      consistency: boolean[];
      checkpoints: ([string, number, string, string] | null)[];
      formats: (unknown[] | null)[];
    };
    expect(answer.leafHashes).toEqual(c.leaves.map(hex));
    expect(answer.roots).toEqual(Array.from({ length: 71 }, (_, n) => hex(rootOf(c.leaves.slice(0, n)))));
    expect(answer.inclusion).toEqual(ours.inclusion);
    expect(answer.consistency).toEqual(ours.consistency);
    expect(answer.checkpoints.map((v) => v?.slice(0, 3) ?? null)).toEqual(ours.checkpoints);
    expect(answer.checkpoints[0]![3]).toBe('2026-11-18T11:06:40.123+00:00');
    expect(answer.formats).toEqual(c.formats.map(() => null));
  });

  it('three readings of the encoding, TypeScript, Python and Go, agree on every row, version 3 with erased fields too', async () => {
    writeReferenceModule(dir);
    const valid = leafRows();
    // Year 0, which the calendars of all three must read alike.
    const year0 = [valid[0]!.row, valid[3]!.row].map((r) => ({
      ...r,
      timestamp: '0000-02-29T23:59:59.999Z',
    }));
    const refused = refusedRows(valid);
    const rows = [...valid.map((v) => v.row), ...year0, ...refused];
    const ours = rows.map(leafOfRow);
    expect(ours.slice(0, valid.length + year0.length).every((h) => h !== null)).toBe(true);
    expect(ours.slice(valid.length + year0.length)).toEqual(refused.map(() => null));
    // Rows of all three versions, and an erased field of each committed one.
    const versions = valid.map(({ row }) => encodeLeaf(leafEventOf(row))[0]);
    expect(new Set(versions)).toEqual(new Set([1, 2, 3]));
    expect(new Set(valid.flatMap(({ row }) => Object.keys(row.erased ?? {})))).toEqual(
      new Set(COMMITTED_FIELDS),
    );
    // An erased field's commitment stands for its value: the leaf is the one of the row before the erasure.
    for (const { row, whole } of valid) expect(leafOfRow(row)).toBe(leafOfRow(whole));
    const python = JSON.parse(
      await runWith(
        await referencePython(),
        [join(ROOT, 'test/support/integrity-reference/run_cases.py'), dir],
        JSON.stringify({ events: [], inclusion: [], consistency: [], checkpoints: [], formats: [], rows }),
      ),
    ) as { rows: (string | null)[] };
    expect(python.rows).toEqual(ours);
    const { stdout } = await run('bash', [join(ROOT, 'scripts/ensure-go-tool.sh'), 'integrity-go'], {
      cwd: ROOT,
    });
    const go = JSON.parse(await runWith(stdout.trim(), [], JSON.stringify({ leaves: rows }))) as {
      leaves: string[];
    };
    expect(go.leaves.map((h) => (h === '' ? null : h))).toEqual(ours);
  }, 600_000);

  it("the Go team's golang.org/x/mod (sumdb note and tlog) agrees on every proof and checkpoint", async () => {
    const { stdout } = await run('bash', [join(ROOT, 'scripts/ensure-go-tool.sh'), 'integrity-go'], {
      cwd: ROOT,
    });
    const answer = JSON.parse(await runWith(stdout.trim(), [], JSON.stringify(hexCases))) as {
      checkpoints: string[];
      inclusion: boolean[];
      consistency: boolean[];
    };
    expect(answer.inclusion).toEqual(ours.inclusion);
    // tlog leaves out proofs from an empty tree (docs/integrity.md decides them): those cases are not compared.
    const fromSome = (v: boolean[]) => v.filter((_, i) => c.consistency[i]!.first > 0);
    expect(fromSome(answer.consistency)).toEqual(fromSome(ours.consistency));
    expect(new Set(fromSome(ours.consistency))).toEqual(new Set([true, false]));
    expect(answer.checkpoints.map((text) => text !== '')).toEqual(ours.checkpoints.map((v) => v !== null));
  }, 600_000);
});
