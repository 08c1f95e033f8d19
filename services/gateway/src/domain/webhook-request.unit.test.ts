import { describe, expect, it } from 'vitest';
import { parseCreateWebhook, parseUpdateWebhook } from './webhook-request.js';

const URL = 'https://siem.example.com/hook';
const fieldsOf = (parsed: ReturnType<typeof parseCreateWebhook> | ReturnType<typeof parseUpdateWebhook>) =>
  parsed.ok ? [] : parsed.errors.map((e) => e.field);

// Each value the patient filter refuses, with the field the 422 names.
const BAD_PATIENT_FILTERS: [unknown, string[]][] = [
  ['p-1', ['patient_filter']],
  [null, ['patient_filter']],
  [{ 0: 'p-1' }, ['patient_filter']],
  [[42], ['patient_filter.0']],
  [[null], ['patient_filter.0']],
  [[['p-1']], ['patient_filter.0']],
  [['p-1', ''], ['patient_filter.1']],
  [['x'.repeat(257)], ['patient_filter.0']],
  [['p-\ud800'], ['patient_filter.0']],
  [['\udc00p'], ['patient_filter.0']],
  [['p\u00001'], ['patient_filter.0']],
  [['p-1\n'], ['patient_filter.0']],
  [['p\u007f1'], ['patient_filter.0']],
  [['p-\u00851'], ['patient_filter.0']],
  [Array.from({ length: 51 }, (_, i) => `p-${i}`), ['patient_filter']],
];

// The edges it takes: 50 ids, 256 characters, one character, a space, any script, a character beyond the BMP.
const GOOD_PATIENT_FILTERS = [
  [],
  ['p-1042'],
  Array.from({ length: 50 }, (_, i) => `p-${i}`),
  ['x'.repeat(256), 'y'],
  ['MRN 0042', 'Müller-Lüdenscheidt', '患者-7', '\u{1F9FE}'.repeat(128)],
  ['p-1', 'p-1'],
];

describe('parseCreateWebhook: patient_filter', () => {
  it('defaults to [], every event', () => {
    expect(parseCreateWebhook({ url: URL })).toMatchObject({ ok: true, value: { patient_filter: [] } });
  });

  it.each(GOOD_PATIENT_FILTERS.map((p) => [p]))('takes %j as given', (patients) => {
    expect(parseCreateWebhook({ url: URL, patient_filter: patients })).toMatchObject({
      ok: true,
      value: { patient_filter: patients },
    });
  });

  it.each(BAD_PATIENT_FILTERS)('refuses %j, naming %j', (patients, fields) => {
    expect(fieldsOf(parseCreateWebhook({ url: URL, patient_filter: patients }))).toEqual(fields);
  });

  it('names the patient filter beside the other fields at fault', () => {
    expect(fieldsOf(parseCreateWebhook({ url: 42, patient_filter: [''], event_filter: ['PHI.'] }))).toEqual([
      'url',
      'event_filter.0',
      'patient_filter.0',
    ]);
  });
});

describe('parseUpdateWebhook: patient_filter', () => {
  it('is a change of its own, [] among them; absent, it stays as it is', () => {
    expect(parseUpdateWebhook({ patient_filter: [] })).toEqual({ ok: true, value: { patient_filter: [] } });
    expect(parseUpdateWebhook({ patient_filter: ['p-1'], description: 'VIP' })).toEqual({
      ok: true,
      value: { patient_filter: ['p-1'], description: 'VIP' },
    });
    expect(parseUpdateWebhook({ description: 'VIP' })).toEqual({ ok: true, value: { description: 'VIP' } });
  });

  it.each(BAD_PATIENT_FILTERS)('refuses %j, naming %j', (patients, fields) => {
    expect(fieldsOf(parseUpdateWebhook({ patient_filter: patients }))).toEqual(fields);
  });
});
