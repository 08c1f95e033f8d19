import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type avro from 'avsc';
import { auditEventCodec } from './audit-event.codec.js';
import { rabinFingerprint64 } from './rabin-fingerprint.js';
import { loadSchemaVersions, schemaVersion } from './schema-registry.js';
import { NO_PATIENT_FIELDS, type AuditEventRecord } from '../audit-event/audit-event.js';
import { DecodeError, singleObjectCodec } from './single-object.codec.js';
import { sampleRecord } from '../../test-support/sample-record.js';

const versions = loadSchemaVersions('audit-event');
const v1 = versions[0]!;
const newest = versions.at(-1)!;
const newestSchema = newest.type.schema({ exportAttrs: true }) as avro.schema.RecordType;
// The version after the newest, as the contract allows it to evolve: one added field with a default.
const next = schemaVersion(newest.version + 1, {
  ...newestSchema,
  fields: [...newestSchema.fields, { name: 'session_id', type: 'string', default: '' }],
});

describe('CRC-64-AVRO', () => {
  // Vectors from the Avro specification's test suite (share/test/data/schema-tests.txt).
  it.each([
    ['"null"', 7195948357588979594n],
    ['"int"', 8247732601305521295n],
  ])('fingerprints %s like the reference implementation', (canonical, expected) => {
    expect(BigInt.asIntN(64, rabinFingerprint64(Buffer.from(canonical)))).toBe(expected);
  });
});

describe('audit event codec', () => {
  it('round-trips a record with the single-object header, in the oldest version that holds it whole', () => {
    const codec = auditEventCodec();
    const salts = Buffer.alloc(128, 7).toString('base64');
    const named = sampleRecord({ patient_id: 'p-1', disclosure: true, leaf_salts: salts });
    const bytes = codec.encode(named);
    expect([...bytes.subarray(0, 2)]).toEqual([0xc3, 0x01]);
    expect(bytes.subarray(2, 10).equals(newest.fingerprint)).toBe(true);
    expect(codec.decode(bytes)).toEqual(named);
    // Without salts: written in version 2, which consumers of before version 3 read too.
    const unsalted = sampleRecord({ patient_id: 'p-1' });
    expect(codec.encode(unsalted).subarray(2, 10).equals(versions[1]!.fingerprint)).toBe(true);
    expect(codec.decode(codec.encode(unsalted))).toEqual(unsalted);
    // Nothing of version 2 in it: written in version 1, which consumers of before version 2 read too.
    const plain = sampleRecord();
    const older = codec.encode(plain);
    expect(older.subarray(2, 10).equals(v1.fingerprint)).toBe(true);
    expect(codec.decode(older)).toEqual(plain);
    expect(singleObjectCodec([v1], v1).decode(older)).toMatchObject({ event_id: plain.event_id });
  });

  it('refuses bytes without the header, with an unknown fingerprint, or truncated', () => {
    const codec = auditEventCodec();
    const good = codec.encode(sampleRecord());
    expect(() => codec.decode(Buffer.from('{"event_id":"x"}'))).toThrow(DecodeError);
    const foreign = Buffer.from(good);
    foreign[5] = (foreign[5]! + 1) & 0xff;
    expect(() => codec.decode(foreign)).toThrow(/unknown schema fingerprint/);
    expect(() => codec.decode(good.subarray(0, good.length - 3))).toThrow(DecodeError);
    expect(() => codec.decode(Buffer.concat([good, Buffer.from([0])]))).toThrow(DecodeError);
  });
});

describe('schema evolution', () => {
  it('reads a version 1 record with the patient and disclosure fields empty, as written before they existed', () => {
    const record = sampleRecord();
    const v1Fields = (v1.type.schema() as avro.schema.RecordType).fields.map((f) => f.name);
    const older = Object.fromEntries(v1Fields.map((name) => [name, record[name as keyof AuditEventRecord]]));
    const bytes = singleObjectCodec([v1], v1).encode(older);
    expect(auditEventCodec().decode(bytes)).toEqual({ ...older, ...NO_PATIENT_FIELDS, leaf_salts: '' });
  });

  it('a reader with an added defaulted field reads the records before it', () => {
    const record = sampleRecord({ patient_id: 'p-1' });
    const bytes = singleObjectCodec(versions).encode(record);
    expect(singleObjectCodec([...versions, next], next).decode(bytes)).toEqual({ ...record, session_id: '' });
  });

  it('a reader reads the records of a later version, skipping the field it does not know', () => {
    const record = sampleRecord({ patient_id: 'p-1' });
    const bytes = singleObjectCodec([...versions, next], next).encode({ ...record, session_id: 's-1' });
    expect(singleObjectCodec([...versions, next], newest).decode(bytes)).toEqual(record);
  });

  // Every contract under schemas/ (the audit event, the export job request).
  const contracts = readdirSync(new URL('../../../../../schemas/', import.meta.url));

  it.each(contracts)(
    '%s: every committed version only adds defaulted fields to the one before',
    (contract) => {
      const versions = loadSchemaVersions(contract);
      expect(versions.length).toBeGreaterThan(0);
      expect(versions.map((v) => v.version)).toEqual(versions.map((_, i) => i + 1));
      for (let i = 1; i < versions.length; i++) {
        const older = versions[i - 1]!.type.schema() as avro.schema.RecordType;
        const newer = versions[i]!.type.schema({ exportAttrs: true }) as avro.schema.RecordType;
        const olderNames = older.fields.map((f) => f.name);
        expect(newer.fields.slice(0, olderNames.length).map((f) => f.name)).toEqual(olderNames);
        for (const added of newer.fields.slice(olderNames.length)) expect(added).toHaveProperty('default');
        expect(() => versions[i]!.type.createResolver(versions[i - 1]!.type)).not.toThrow();
        expect(() => versions[i - 1]!.type.createResolver(versions[i]!.type)).not.toThrow();
      }
    },
  );
});
