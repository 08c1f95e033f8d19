import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_TEMPLATE_LENGTH,
  parseSelector,
  parseTemplate,
  SELECTOR_PATTERN,
  TEMPLATE_PATTERN,
} from './display-template.js';

describe('parseTemplate', () => {
  it('splits a template into text and fields, braces written twice kept as text', () => {
    expect(parseTemplate('{user_id} read {fields_accessed} of {resource_type} {resource_id}')).toEqual({
      ok: true,
      parts: [
        { field: 'user_id' },
        { text: ' read ' },
        { field: 'fields_accessed' },
        { text: ' of ' },
        { field: 'resource_type' },
        { text: ' ' },
        { field: 'resource_id' },
      ],
    });
    expect(parseTemplate('{{literal}} {details.order.id} {outcome}')).toEqual({
      ok: true,
      parts: [{ text: '{literal} ' }, { field: 'details.order.id' }, { text: ' ' }, { field: 'outcome' }],
    });
    expect(parseTemplate('<b>{user_id}</b>')).toEqual({
      ok: true,
      parts: [{ text: '<b>' }, { field: 'user_id' }, { text: '</b>' }],
    });
  });

  it.each([
    ['', 'characters'],
    ['x'.repeat(MAX_TEMPLATE_LENGTH + 1), 'characters'],
    ['line\nbreak', 'control'],
    ['{password}', '{password} at 1 names no field'],
    ['{details}', 'names no field'],
    ['{details.}', 'names no field'],
    ['{user_id', 'is not closed'],
    ['a } b', 'a lone } at 3'],
    ['{ user_id }', 'names no field'],
  ])('refuses %j, saying why', (template, why) => {
    const parsed = parseTemplate(template);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(why);
  });
});

describe('TEMPLATE_PATTERN', () => {
  it('takes exactly the templates parseTemplate takes', () => {
    const pieces = ['{', '}', '{{', '}}', 'a', ' ', '<b>', 'user_id', 'details', '.', 'x', '\n', 'é'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (chunks) => {
        const template = chunks.join('');
        expect(TEMPLATE_PATTERN.test(template), JSON.stringify(template)).toBe(parseTemplate(template).ok);
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.stringMatching(TEMPLATE_PATTERN, { maxLength: MAX_TEMPLATE_LENGTH }), (template) => {
        if (template.length <= MAX_TEMPLATE_LENGTH) expect(parseTemplate(template).ok).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseSelector', () => {
  it('takes every selector the API document promises to take', () => {
    fc.assert(
      fc.property(fc.stringMatching(SELECTOR_PATTERN), (text) => {
        if (text.length <= 100) expect(parseSelector(text), text).not.toBeNull();
      }),
    );
  });

  it('reads an action, a prefix and the star for every action', () => {
    expect(parseSelector('phi.read')).toEqual({ action: 'phi.read' });
    expect(parseSelector('phi.*')).toEqual({ prefix: 'phi.' });
    expect(parseSelector('admin.webhook.*')).toEqual({ prefix: 'admin.webhook.' });
    expect(parseSelector('*')).toEqual({ prefix: '' });
  });

  it.each(['', 'phi', 'PHI.read', 'phi*', 'phi.**', '*.read', 'phi.read*', 'a.'.repeat(60) + 'b'])(
    'refuses %j',
    (text) => expect(parseSelector(text)).toBeNull(),
  );
});
