import { ACTION_PATTERN } from '@audit/shared/contract';

/**
 * Display templates (docs/viewer.md "Display templates"): a sentence per action, such as
 * `{user_id} read {fields_accessed} of {resource_type} {resource_id}`, which the viewer fills in with an event's
 * values as text. The gateway parses a template once, when it is stored, and hands the page its parts: the page
 * never parses, so there is one grammar.
 */

/** The fields a template may name: the event's, `outcome` (succeeded, or denied or failed) and `details.<path>`. */
export const TEMPLATE_FIELDS = [
  'timestamp',
  'action',
  'user_id',
  'user_role',
  'resource_type',
  'resource_id',
  'fields_accessed',
  'phi_involved',
  'source_ip',
  'user_agent',
  'justification',
  'outcome',
] as const;

export const MAX_TEMPLATE_LENGTH = 500;

/**
 * The grammar below as one pattern, for the API document: what it matches, parseTemplate takes (its own errors
 * say where a template goes wrong).
 */
export const TEMPLATE_PATTERN = new RegExp(
  `^(?:[^{}\\x00-\\x1f\\x7f]|\\{\\{|\\}\\}|\\{(?:${TEMPLATE_FIELDS.join('|')}|details(?:\\.[A-Za-z0-9_-]{1,64}){1,5})\\})+$`,
);
export const MAX_TEMPLATES_PER_TENANT = 200;
const DETAILS_PATH = /^details(?:\.[A-Za-z0-9_-]{1,64}){1,5}$/;
// eslint-disable-next-line no-control-regex -- the control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

export type TemplatePart = { text: string } | { field: string };

/** A template's parts, or why it is not one (with the position, from 1, of what is wrong). */
export function parseTemplate(
  template: string,
): { ok: true; parts: TemplatePart[] } | { ok: false; error: string } {
  if (template.length === 0 || template.length > MAX_TEMPLATE_LENGTH) {
    return { ok: false, error: `must be 1 to ${MAX_TEMPLATE_LENGTH} characters` };
  }
  if (CONTROL.test(template))
    return { ok: false, error: 'must not contain control characters or line breaks' };
  const parts: TemplatePart[] = [];
  let text = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      text += c;
      i += 1;
    } else if (c === '}') {
      return { ok: false, error: `a lone } at ${i + 1}: write }} for a brace` };
    } else if (c === '{') {
      const end = template.indexOf('}', i);
      const name = end < 0 ? '' : template.slice(i + 1, end);
      if (end < 0) return { ok: false, error: `the { at ${i + 1} is not closed: write {{ for a brace` };
      if (!(TEMPLATE_FIELDS as readonly string[]).includes(name) && !DETAILS_PATH.test(name)) {
        return {
          ok: false,
          error: `{${name}} at ${i + 1} names no field: use ${TEMPLATE_FIELDS.join(', ')} or details.<key>`,
        };
      }
      if (text) parts.push({ text });
      text = '';
      parts.push({ field: name });
      i = end;
    } else {
      text += c;
    }
  }
  if (text) parts.push({ text });
  return { ok: true, parts };
}

/**
 * Which events a template is for: one action (`phi.read`), every action with a prefix (`phi.*`: `phi.` then
 * anything), or every action (`*`). An event takes the template of its exact action, else that of the longest
 * prefix it starts with.
 */
export type Selector = { action: string } | { prefix: string };

/** Every selector, as one pattern (the API document's): the star, a prefix and a star, or an action. */
export const SELECTOR_PATTERN = /^(?:\*|(?:[a-z0-9_-]+\.){1,10}\*|[a-z0-9_-]+(?:\.[a-z0-9_-]+)+)$/;
export const MAX_SELECTOR_LENGTH = 100;

export function parseSelector(text: string): Selector | null {
  if (text.length > MAX_SELECTOR_LENGTH || !SELECTOR_PATTERN.test(text)) return null;
  if (text.endsWith('*')) return { prefix: text.slice(0, -1) };
  return ACTION_PATTERN.test(text) ? { action: text } : null;
}
