import { parse } from 'lossless-json';
import type { IndexedFieldError } from '@audit/shared/contract';

// Only a number of 16 significant digits or more (a double keeps 15 for sure), or with an exponent of three
// digits, can come out of JSON.parse as another value. The text is scanned for such a number where a value
// starts (after `:`, `[` or `,`; a cheap regular expression, which text inside strings can match too, and UUIDs
// or hashes do not) before it is read again number by number, which happens only then.
const SUSPECT = /[:,[]\s*-?(?:\d{16}|\d[\d.]{16}|\d[\d.]*[eE][+-]?\d{3})/;

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
    if (typeof v === 'object' && v !== null) for (const child of Object.values(v)) stack.push(child);
  }
  return undefined;
}

/**
 * The events of a batch whose `details` hold a number that JSON.parse would change (12345678901234567890 would be
 * stored as 12345678901234567000, 1e400 as null): an audit trail keeps what it was given or refuses it
 * (docs/ingest.md). `text` is one event (an NDJSON line, numbered `index`) or, with `whole`, the JSON array of a
 * batch. Only for a batch that passed validation: its nesting and sizes are bounded, so the second, recursive read
 * cannot exhaust the stack. That read refuses an object holding one key twice with different values, which
 * JSON.parse would have resolved silently to the last: such a body is refused whole (`(body)`).
 */
export function inexactDetails(text: string, whole: boolean, index = 0): IndexedFieldError[] {
  if (!SUSPECT.test(text)) return [];
  let exact: unknown;
  try {
    exact = parse(text, null, (n) => (parsesExactly(n) ? 0 : new Inexact(n)));
  } catch (err) {
    return [
      { index, field: '(body)', message: `cannot be read number by number: ${(err as Error).message}` },
    ];
  }
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
