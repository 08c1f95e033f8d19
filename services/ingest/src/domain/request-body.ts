import { parseJsonText, type IndexedFieldError } from '@audit/shared';

export const MAX_EVENTS_PER_REQUEST = 1000;

/**
 * An `application/x-ndjson` body as its parser hands it on: the route tells the two formats apart by this, never
 * by what a JSON body parsed into (a JSON string is not NDJSON).
 */
export class NdjsonText {
  constructor(readonly text: string) {}
}

export type ParsedBody =
  | { ok: true; items: unknown[] }
  | {
      ok: false;
      kind: 'malformed' | 'too_many' | 'invalid';
      message: string;
      details?: IndexedFieldError[];
    };

/**
 * NDJSON: one event per non-blank line; every line that is not JSON is listed by its index. Parsed like Fastify
 * parses JSON bodies: a `__proto__` or `constructor.prototype` key is refused, never silently dropped.
 */
export function parseNdjson(text: string): ParsedBody {
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
  return checkItems(items);
}

export function checkItems(body: unknown): ParsedBody {
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
  return { ok: true, items: body };
}
