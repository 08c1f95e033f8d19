import { z } from 'zod';
import { formatTimestamp } from '@audit/shared/contract';
import type { TemplateVersion } from '../adapters/display-template-store.js';
import {
  MAX_SELECTOR_LENGTH,
  MAX_TEMPLATE_LENGTH,
  parseSelector,
  parseTemplate,
  SELECTOR_PATTERN,
  TEMPLATE_FIELDS,
  TEMPLATE_PATTERN,
} from '../domain/display-template.js';
import { timestampSchema } from './read-api.schema.js';

export const selectorSchema = z.string().max(MAX_SELECTOR_LENGTH).regex(SELECTOR_PATTERN).meta({
  description: 'An action (`phi.read`), an action prefix and a star (`phi.*`), or `*` for every action.',
  example: 'phi.read',
});

export const templateBodySchema = z
  .strictObject({
    template: z
      .string()
      .min(1)
      .max(MAX_TEMPLATE_LENGTH)
      .regex(TEMPLATE_PATTERN)
      .meta({
        description: `1 to 500 characters, no line break: text and \`{field}\`, where a field is one of ${TEMPLATE_FIELDS.join(', ')} or \`details.<key>\` (a dotted path into \`details\`); \`{{\` and \`}}\` write braces.`,
        example: '{user_id} read {fields_accessed} of {resource_type} {resource_id}',
      }),
  })
  .meta({ id: 'DisplayTemplateBody' });

const partSchema = z.union([
  z.object({ text: z.string() }).meta({ description: 'Text, shown as it is.' }),
  z.object({ field: z.string() }).meta({ description: "A field, filled with the event's value as text." }),
]);

/** docs/viewer.md "Display templates": a selector's template as it is now, parsed for the page. */
export const displayTemplateSchema = z
  .object({
    selector: selectorSchema,
    action: z.string().optional().meta({ description: 'Set when the template is for one action.' }),
    action_prefix: z
      .string()
      .optional()
      .meta({ description: "Set when it is for every action with this prefix (`''`: every action)." }),
    template: z.string(),
    parts: z
      .array(partSchema)
      .meta({ description: 'The template read once, in order: what the viewer fills in.' }),
    version: z.int().min(1),
    changed_at: timestampSchema,
  })
  .meta({ id: 'DisplayTemplate' });

export const displayTemplateListSchema = z
  .object({ templates: z.array(displayTemplateSchema) })
  .meta({ id: 'DisplayTemplateList' });

export const templateVersionsSchema = z
  .object({
    selector: selectorSchema,
    versions: z.array(
      z.object({
        version: z.int().min(1),
        template: z
          .string()
          .nullable()
          .meta({ description: '`null`: the template was removed in this version.' }),
        changed_at: timestampSchema,
        changed_by: z.string().meta({ example: 'api_key:0a1b2c3d' }),
      }),
    ),
  })
  .meta({ id: 'DisplayTemplateVersions' });

export function displayTemplateView(t: TemplateVersion & { template: string }) {
  const selector = parseSelector(t.selector)!;
  const parsed = parseTemplate(t.template);
  return {
    selector: t.selector,
    ...('action' in selector ? { action: selector.action } : { action_prefix: selector.prefix }),
    template: t.template,
    parts: parsed.ok ? parsed.parts : [{ text: t.template }],
    version: t.version,
    changed_at: formatTimestamp(t.changed_at.getTime()),
  };
}
