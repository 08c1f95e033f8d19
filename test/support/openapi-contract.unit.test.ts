import { describe, expect, it } from 'vitest';
import { nonPortablePatterns } from './openapi-contract.js';

const flagged = (...patterns: string[]) =>
  nonPortablePatterns({ a: patterns.map((pattern) => ({ pattern })) });

describe('nonPortablePatterns', () => {
  it('takes escapes, classes and `\\s` in a class that names what the dialects disagree on', () => {
    expect(
      flagged(
        String.raw`^[a-z0-9-]{1,63}$`,
        String.raw`^[^\x00-\x1f]*$`,
        String.raw`^[^\s\x00-\x20\x7f-\xa0\ufeff]*$`,
        String.raw`^(?:ab|c\.d)+$`,
      ),
    ).toEqual([]);
  });

  it('flags `\\s` where ECMA-262, Python or .NET would read it otherwise, and what some dialect lacks', () => {
    const patterns = [
      // ECMA-262's \s holds U+FEFF, Python's and .NET's do not; Python's holds U+001C to U+001F.
      String.raw`^[^\s]*$`,
      String.raw`^[^\s\ufeff]*$`,
      // Outside a class, and the shorthands that differ.
      String.raw`^\s*$`,
      String.raw`^\d+$`,
      String.raw`^.+$`,
      String.raw`^\p{L}+$`,
      String.raw`^(?<name>a)$`,
    ];
    expect(flagged(...patterns)).toEqual(patterns);
  });
});
