import { describe, expect, it } from 'vitest';
import { NO_SPACE_OR_CONTROL_PATTERN } from './text.js';

describe('NO_SPACE_OR_CONTROL_PATTERN', () => {
  it('refuses exactly the characters ECMA-262 calls spaces or controls, with or without the u flag', () => {
    const spaceOrControl = /[\s\p{Cc}]/u;
    const withoutU = new RegExp(NO_SPACE_OR_CONTROL_PATTERN.source);
    const withU = new RegExp(NO_SPACE_OR_CONTROL_PATTERN.source, 'u');
    const differ: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const c = String.fromCodePoint(code);
      const refused = spaceOrControl.test(c);
      if (withoutU.test(`a${c}b`) === refused || withU.test(`a${c}b`) === refused)
        differ.push(code.toString(16));
    }
    expect(differ).toEqual([]);
  });
});
