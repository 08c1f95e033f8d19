import type { AuditEvent } from './event.js';
import { showTime } from './time.js';

/** A display template as the API hands it over, parsed (GET …/display-templates; docs/viewer.md). */
export interface DisplayTemplate {
  selector: string;
  action?: string;
  action_prefix?: string;
  parts: ({ text: string } | { field: string })[];
}

/** The event's template: the one of its action, else the one of the longest prefix of it; null for none. */
export function templateFor(
  event: AuditEvent,
  templates: readonly DisplayTemplate[],
): DisplayTemplate | null {
  let best: DisplayTemplate | null = null;
  for (const t of templates) {
    if (t.action === event.action) return t;
    const prefix = t.action_prefix;
    if (prefix !== undefined && event.action.startsWith(prefix)) {
      if (!best || prefix.length > (best.action_prefix ?? '').length) best = t;
    }
  }
  return best;
}

const NONE = '—';

function parsed(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

function shown(value: unknown): string {
  if (value === undefined || value === null || value === '') return NONE;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** One field's value as a sentence says it. */
function valueOf(event: AuditEvent, field: string, utc: boolean): string {
  if (field.startsWith('details.')) {
    let value = parsed(event.details);
    for (const key of field.split('.').slice(1)) {
      value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    }
    return shown(value);
  }
  switch (field) {
    case 'timestamp':
      return showTime(event.timestamp, utc);
    case 'outcome':
      return event.success ? 'succeeded' : 'was denied or failed';
    case 'phi_involved':
      return event.phi_involved ? 'PHI' : 'no PHI';
    case 'fields_accessed': {
      const fields = parsed(event.fields_accessed);
      return Array.isArray(fields) && fields.length > 0 ? fields.join(', ') : shown(fields);
    }
    default:
      return shown((event as unknown as Record<string, unknown>)[field]);
  }
}

/**
 * The event's sentence: its template filled in with its values, as one string that the page puts in a text node,
 * so that a value can never become markup. Without a template: who, on what.
 */
export function sentenceOf(event: AuditEvent, template: DisplayTemplate | null, utc: boolean): string {
  if (!template) return `${shown(event.user_id)} · ${event.resource_type} ${event.resource_id}`.trim();
  return template.parts
    .map((part) => ('text' in part ? part.text : valueOf(event, part.field, utc)))
    .join('');
}
