import { text } from './text.js';

/** At most this many characters: what ingest, the filters and the webhooks' patient filters take alike. */
export const MAX_PATIENT_ID = 256;

/**
 * A patient id: text without control characters. Postgres cannot store NUL, so a webhook's patient filter could not
 * hold such an id, and an id that can be ingested must be one a filter can name.
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it refuses
export const NO_CONTROL_PATTERN = /^[^\x00-\x1f\x7f-\x9f]*$/;

export const patientIdText = () =>
  text(MAX_PATIENT_ID).regex(NO_CONTROL_PATTERN, 'must not contain control characters');
