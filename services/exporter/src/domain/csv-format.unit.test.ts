import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { csvField, type AuditEventView } from '@audit/shared/contract';
import { CSV_COLUMNS, CSV_HEADER, csvRecord } from './csv-format.js';

const event: AuditEventView = {
  event_id: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90',
  timestamp: '2026-11-21T09:30:00.123+00:00',
  tenant_id: 'acme',
  action: 'phi.read',
  user_id: 'u-1',
  user_role: 'nurse',
  resource_type: 'patient',
  resource_id: '123',
  fields_accessed: '["ssn","dob"]',
  phi_involved: true,
  source_ip: '203.0.113.7',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
  justification: 'treatment, "urgent"\r\nsecond line',
  success: false,
  details: '{"a":"b,c"}',
  patient_id: 'p-1042',
  purpose_of_use: 'HPAYMT',
  recipient: 'Acme Billing, 1 Main St',
  disclosure: true,
  accounting_exclusion: '',
};

describe('CSV records', () => {
  it('writes the header and fields in the documented order, quoting only what RFC 4180 needs', () => {
    expect(CSV_HEADER).toBe(
      'event_id,timestamp,tenant_id,action,user_id,user_role,resource_type,resource_id,fields_accessed,' +
        'phi_involved,source_ip,user_agent,justification,success,details,' +
        'patient_id,purpose_of_use,recipient,disclosure,accounting_exclusion,leaf_salts\r\n',
    );
    expect(csvRecord(event)).toBe(
      '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90,2026-11-21T09:30:00.123+00:00,acme,phi.read,u-1,nurse,patient,123,' +
        '"[""ssn"",""dob""]",true,203.0.113.7,Mozilla/5.0 (X11; Linux x86_64),' +
        '"treatment, ""urgent""\r\nsecond line",false,"{""a"":""b,c""}",p-1042,HPAYMT,' +
        '"Acme Billing, 1 Main St",true,,\r\n',
    );
    // An event with salts has them last, as the API gives them; one without has the column empty.
    const salts = Buffer.alloc(128, 9).toString('base64');
    expect(csvRecord({ ...event, leaf_salts: salts })).toBe(
      csvRecord(event).replace(/\r\n$/, `${salts}\r\n`),
    );
  });

  it('holds every column of CSV_COLUMNS in its order, whatever the values (property)', () => {
    const text = fc.string({ unit: 'grapheme' });
    fc.assert(
      fc.property(
        fc.record({
          ...Object.fromEntries(CSV_COLUMNS.map((c) => [c, text])),
          phi_involved: fc.boolean(),
          success: fc.boolean(),
          disclosure: fc.boolean(),
        }),
        (values) => {
          const e = { ...values, timestamp: event.timestamp } as AuditEventView;
          expect(csvRecord(e)).toBe(`${CSV_COLUMNS.map((c) => csvField(String(e[c]))).join(',')}\r\n`);
        },
      ),
    );
  });

  it('quotes a lone CR or LF too, and leaves spaces and formulas as they are', () => {
    expect(csvField('a\nb')).toBe('"a\nb"');
    expect(csvField('a\rb')).toBe('"a\rb"');
    expect(csvField(' =1+1 ')).toBe(' =1+1 ');
    expect(csvField('')).toBe('');
  });

  it('reads back as the same values with a third-party RFC 4180 reader, whatever the text (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1, maxLength: 6 }), (values) => {
        const line = `${values.map(csvField).join(',')}\r\n`;
        expect(parse(line, { relax_column_count: false, bom: false })).toEqual([values]);
      }),
    );
    expect(parse(CSV_HEADER + csvRecord(event), { columns: true })).toEqual([
      Object.fromEntries(CSV_COLUMNS.map((c) => [c, String(event[c] ?? '')])),
    ]);
  });
});
