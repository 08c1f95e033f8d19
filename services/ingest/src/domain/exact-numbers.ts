import { parse } from 'lossless-json';
import type { IndexedFieldError } from '@audit/shared';

// Only a number of 16 significant digits or more (a double keeps 15 for sure), or with an exponent of three
// digits, can come out of JSON.parse as another value. The text is scanned for either, decimal point included
// (a cheap regular expression, over strings too) before it is tokenized exactly, which happens only then.
const SUSPECT = /\d{16}|[\d.]{17}|[eE][+-]?\d{3}/;

/**
 * A decimal number's value as sign, significant digits and exponent: `1.50`, `15e-1` and `0.15E1` are one; zero
 * has no sign.
 */
function decimalValue(text: string): string {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  const digits = `${m[2]}${m[3] ?? ''}`;
  const significant = digits.replace(/^0+/, '');
  if (significant === '') return '0';
  const trimmed = significant.replace(/0+$/, '');
  const exponent = Number(m[4] ?? 0) - (m[3]?.length ?? 0) + (significant.length - trimmed.length);
  return `${m[1]}${trimmed}e${exponent}`;
}

/** Whether JSON.parse keeps this number's value (JSON text of a number, as the tokenizer hands it over). */
export function parsesExactly(text: string): boolean {
  const value = Number(text);
  return Number.isFinite(value) && decimalValue(String(value)) === decimalValue(text);
}

class Inexact {
  constructor(readonly text: string) {}
}

function firstInexact(value: unknown): Inexact | undefined {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v instanceof Inexact) return v;
    if (typeof v === 'object' && v !== null) stack.push(...Object.values(v));
  }
  return undefined;
}

/**
 * The events of a batch whose `details` hold a number that JSON.parse would change (12345678901234567890 would be
 * stored as 12345678901234567000, 1e400 as null): an audit trail keeps what it was given or refuses it (docs/ingest.md).
 * `text` is one event (an NDJSON line, numbered `index`) or, with `whole`, the JSON array of a batch.
 */
export function inexactDetails(text: string, whole: boolean, index = 0): IndexedFieldError[] {
  if (!SUSPECT.test(text)) return [];
  const exact = parse(text, null, (n) => (parsesExactly(n) ? 0 : new Inexact(n)));
  const events = whole && Array.isArray(exact) ? exact : [exact];
  return events.flatMap((event, i) => {
    const found =
      typeof event === 'object' && event !== null
        ? firstInexact((event as Record<string, unknown>).details)
        : undefined;
    return found
      ? [
          {
            index: index + i,
            field: 'details',
            message: `holds ${found.text.slice(0, 40)}, a number that would not be stored exactly: send it as a string`,
          },
        ]
      : [];
  });
}
