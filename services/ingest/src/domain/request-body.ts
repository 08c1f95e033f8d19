import { type IndexedFieldError } from '@audit/shared/contract';
import { parseJsonText } from '@audit/shared/platform';
import { inexactDetails } from './exact-numbers.js';

export const MAX_EVENTS_PER_REQUEST = 1000;

/**
 * A body as its content-type parser hands it on, still text: the route reads it in the format its `Content-Type`
 * named, never by what it parsed into (a JSON string is not NDJSON), and checks its numbers against the text.
 */
export class BodyText {
  constructor(
    readonly format: 'json' | 'ndjson',
    readonly text: string,
  ) {}
}

export type ParsedBody =
  | {
      ok: true;
      items: unknown[];
      /** Once the events are valid: those whose `details` hold a number that parsing changed. */
      inexact: () => IndexedFieldError[];
    }
  | {
      ok: false;
      kind: 'malformed' | 'too_many' | 'invalid';
      message: string;
      details?: IndexedFieldError[];
    };

/** The batch of a request: parsed like Fastify parses JSON (a `__proto__` or `constructor.prototype` key refused). */
export function readBody(body: unknown): ParsedBody {
  // No body at all (no Content-Type to parse it by) is an empty batch too.
  if (!(body instanceof BodyText)) return checkItems(body);
  if (body.format === 'ndjson') return parseNdjson(body.text);
  // No body at all is an empty batch, which checkItems names.
  if (body.text.trim() === '') return checkItems(undefined);
  let value: unknown;
  try {
    value = parseJsonText(body.text);
  } catch (err) {
    return {
      ok: false,
      kind: 'malformed',
      message: `The body is not valid JSON: ${(err as Error).message}.`,
    };
  }
  const checked = checkItems(value);
  return checked.ok ? { ...checked, inexact: () => inexactDetails(body.text, true) } : checked;
}

/** NDJSON: one event per non-blank line; every line that is not JSON is listed by its index. */
function parseNdjson(text: string): ParsedBody {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const items: unknown[] = [];
  const details: IndexedFieldError[] = [];
  lines.forEach((line, index) => {
    try {
      items.push(parseJsonText(line));
    } catch (err) {
      details.push({ index, field: '(event)', message: `line is not valid JSON: ${(err as Error).message}` });
    }
  });
  if (details.length > 0)
    return { ok: false, kind: 'malformed', message: 'Some NDJSON lines are not JSON.', details };
  const checked = checkItems(items);
  return checked.ok
    ? { ...checked, inexact: () => lines.flatMap((line, index) => inexactDetails(line, false, index)) }
    : checked;
}

function checkItems(body: unknown): ParsedBody {
  if (!Array.isArray(body)) {
    return { ok: false, kind: 'invalid', message: 'The body must be a JSON array of audit events.' };
  }
  if (body.length === 0) return { ok: false, kind: 'invalid', message: 'The batch contains no events.' };
  if (body.length > MAX_EVENTS_PER_REQUEST) {
    return {
      ok: false,
      kind: 'too_many',
      message: `At most ${MAX_EVENTS_PER_REQUEST} events per request; got ${body.length}.`,
    };
  }
  return { ok: true, items: body, inexact: () => [] };
}
