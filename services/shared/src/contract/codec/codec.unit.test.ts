import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type avro from 'avsc';
import { auditEventCodec } from './audit-event.codec.js';
import { rabinFingerprint64 } from './rabin-fingerprint.js';
import { loadSchemaVersions, schemaVersion } from './schema-registry.js';
import { DecodeError, singleObjectCodec } from './single-object.codec.js';
import { sampleRecord } from '../../test-support/sample-record.js';

const v1 = loadSchemaVersions('audit-event')[0]!;
const v1Schema = v1.type.schema() as avro.schema.RecordType;
// A v2 as the contract allows it to evolve: one added field with a default.
const v2 = schemaVersion(2, {
  ...v1Schema,
  fields: [...v1Schema.fields, { name: 'session_id', type: 'string', default: '' }],
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
  it('round-trips a record with the single-object header', () => {
    const codec = auditEventCodec();
    const record = sampleRecord();
    const bytes = codec.encode(record);
    expect([...bytes.subarray(0, 2)]).toEqual([0xc3, 0x01]);
    expect(bytes.subarray(2, 10).equals(v1.fingerprint)).toBe(true);
    expect(codec.decode(bytes)).toEqual(record);
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
  it('a v2 reader with an added defaulted field reads v1 records', () => {
    const record = sampleRecord();
    const bytes = singleObjectCodec([v1], v1).encode(record);
    expect(singleObjectCodec([v1, v2], v2).decode(bytes)).toEqual({ ...record, session_id: '' });
  });

  it('a v1 reader reads v2 records, skipping the field it does not know', () => {
    const record = sampleRecord();
    const bytes = singleObjectCodec([v1, v2], v2).encode({ ...record, session_id: 's-1' });
    expect(singleObjectCodec([v1, v2], v1).decode(bytes)).toEqual(record);
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
