import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { byteRange, rangeApplies } from './byte-range.js';

describe('byteRange', () => {
  it.each([
    ['bytes=0-99', 1000, { kind: 'partial', start: 0, end: 99 }],
    ['bytes=100-', 1000, { kind: 'partial', start: 100, end: 999 }],
    ['bytes=-100', 1000, { kind: 'partial', start: 900, end: 999 }],
    ['bytes=990-2000', 1000, { kind: 'partial', start: 990, end: 999 }],
    ['bytes=-5000', 1000, { kind: 'partial', start: 0, end: 999 }],
    ['bytes=999-999', 1000, { kind: 'partial', start: 999, end: 999 }],
    ['Bytes = 5-9 ', 1000, { kind: 'partial', start: 5, end: 9 }],
    ['bytes=1000-', 1000, { kind: 'unsatisfiable' }],
    ['bytes=5000-6000', 1000, { kind: 'unsatisfiable' }],
    ['bytes=-0', 1000, { kind: 'unsatisfiable' }],
    ['bytes=0-', 0, { kind: 'unsatisfiable' }],
    ['bytes=-1', 0, { kind: 'unsatisfiable' }],
    [`bytes=${'9'.repeat(400)}-`, 1000, { kind: 'unsatisfiable' }],
    [`bytes=0-${'9'.repeat(400)}`, 1000, { kind: 'partial', start: 0, end: 999 }],
  ] as const)('%s of %i bytes', (header, size, answer) => {
    expect(byteRange(header, size)).toEqual(answer);
  });

  it.each([
    undefined,
    '',
    'bytes=0-1,5-9',
    'bytes=0-1, 5-9',
    'bytes=9-5',
    'bytes=-',
    'bytes=a-b',
    'bytes=1.5-2',
    'bytes=+1-2',
    'bytes=0x10-',
    'items=0-9',
    'bytes 0-9',
    'bytes=0-9;x',
    '=0-9',
  ])('sends the whole file for %j (no range, several, or malformed)', (header) => {
    expect(byteRange(header, 1000)).toEqual({ kind: 'whole' });
  });

  it('answers every valid range of any file with bytes inside the file, of the length it asked for', () => {
    const answer = (header: string, size: number) => {
      const range = byteRange(header, size);
      return range.kind === 'partial' ? range : null;
    };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.nat(), fc.nat(), (size, a, b) => {
        const [first, last] = [Math.min(a, b), Math.max(a, b)];
        const closed = answer(`bytes=${first}-${last}`, size);
        const open = answer(`bytes=${first}-`, size);
        const suffix = answer(`bytes=-${last + 1}`, size);
        for (const r of [closed, open, suffix]) if (r) expect(r.start <= r.end && r.end < size).toBe(true);
        // A range starting inside the file is satisfiable; one past its end is not.
        expect(closed === null).toBe(first >= size);
        if (closed) expect(closed.end - closed.start + 1).toBe(Math.min(last, size - 1) - first + 1);
        if (open) expect(open.end - open.start + 1).toBe(size - first);
        expect(suffix!.end - suffix!.start + 1).toBe(Math.min(last + 1, size));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('rangeApplies', () => {
  const etag = `"${'a'.repeat(64)}"`;
  it.each([
    [undefined, true],
    [etag, true],
    [` ${etag} `, true],
    [`W/${etag}`, false],
    [`"${'b'.repeat(64)}"`, false],
    ['Wed, 21 Oct 2026 07:28:00 GMT', false],
    [[etag, etag], false],
  ] as const)('If-Range %j: %s', (ifRange, applies) => {
    expect(rangeApplies(ifRange as string | string[] | undefined, etag)).toBe(applies);
  });
});
