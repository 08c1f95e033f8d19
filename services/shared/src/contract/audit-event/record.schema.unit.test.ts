import { describe, expect, it } from 'vitest';
import { sampleRecord } from '../../test-support/sample-record.js';
import { auditEventRecordSchema } from './record.schema.js';

const salts = Buffer.alloc(128, 0x5a).toString('base64');
const seed = Buffer.alloc(16, 0x5a).toString('base64');

describe('auditEventRecordSchema: leaf_salts', () => {
  it('takes none, or the one base64 text of a seed (16 bytes) or of salts (128 bytes)', () => {
    expect(auditEventRecordSchema.safeParse(sampleRecord()).success).toBe(true);
    expect(auditEventRecordSchema.safeParse(sampleRecord({ leaf_salts: seed })).success).toBe(true);
    expect(auditEventRecordSchema.safeParse(sampleRecord({ leaf_salts: salts })).success).toBe(true);
  });

  it('refuses other lengths and other text for the same bytes, which would give the row another leaf', () => {
    const other = [
      Buffer.alloc(127).toString('base64'),
      Buffer.alloc(129).toString('base64'),
      Buffer.alloc(15).toString('base64'),
      `${seed.slice(0, -3)}b==`,
      salts.replace(/=$/, ''),
      // The last character carries bits the bytes have not got: the same bytes, other text.
      `${salts.slice(0, -2)}${String.fromCharCode(salts.charCodeAt(170) + 1)}=`,
      ` ${salts}`,
      salts.replace('W', '-'),
    ];
    for (const leaf_salts of other) {
      const parsed = auditEventRecordSchema.safeParse(sampleRecord({ leaf_salts }));
      expect(parsed.success, leaf_salts).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(['leaf_salts']);
    }
  });
});
