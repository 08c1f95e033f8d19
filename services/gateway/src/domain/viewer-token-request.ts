import { z } from 'zod';
import { FILTERS } from '@audit/shared/projection';
import { zodFieldErrors, type FieldError } from '@audit/shared/platform';
import type { Scope } from '@audit/shared/api-keys';
import { NARROWING_FIELDS, type Narrowing } from './narrowing.js';
import { nulFields } from './nul-free.js';

/** The scopes a viewer token may carry: what a page shows and does, never the right to make more tokens. */
export const VIEWER_SCOPES = ['audit:read', 'audit:export', 'webhooks:write'] as const satisfies Scope[];
export const DEFAULT_VIEWER_TTL_S = 15 * 60;
export const MAX_VIEWER_TTL_S = 4 * 60 * 60;
export const MAX_FRAME_ORIGINS = 10;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The origins taken, as the API document states them: a host of letters, digits and single hyphens (each label from
 * a letter, so never an address nor an IDNA `xn--` label) over https, or loopback over http, with an optional port
 * and a final slash.
 * Exactly these: the URL parser alone would take more (a `*` in a host), which the document does not promise.
 */
export const FRAME_ORIGIN_PATTERN =
  /^(?:https:\/\/[A-Za-z](?:-?[A-Za-z0-9])*(?:\.[A-Za-z](?:-?[A-Za-z0-9])*)*|http:\/\/(?:localhost|127\.0\.0\.1|\[::1\]))(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?\/?$/;

/**
 * An origin that may frame the page: https, or http on loopback only (a page framing ours over plain http would
 * put it on an insecure page), with no path, query, fragment or credentials. It is kept as the URL parser spells its
 * origin, so the text that goes into the `frame-ancestors` directive can hold nothing but an origin.
 */
const frameOrigin = z
  .string()
  .max(300)
  .transform((text, ctx) => {
    const origin = FRAME_ORIGIN_PATTERN.test(text) ? originOf(text) : null;
    if (origin !== null) return origin;
    ctx.addIssue({
      code: 'custom',
      message:
        'must be an origin such as https://app.example.com: scheme, host and port only, https (http only on loopback)',
    });
    return z.NEVER;
  })
  .meta({
    example: 'https://app.example.com',
    override: { type: 'string', maxLength: 300, pattern: FRAME_ORIGIN_PATTERN.source },
  });

function originOf(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  return secure && bare && !text.endsWith('#') && !text.endsWith('?') ? url.origin : null;
}

const narrowingShape = Object.fromEntries(
  NARROWING_FIELDS.map((field) => [field, FILTERS[field].body.optional()]),
) as { [K in (typeof NARROWING_FIELDS)[number]]: z.ZodOptional<(typeof FILTERS)[K]['body']> };

/** docs/viewer.md "Viewer tokens": every field optional; unknown fields refused. */
export const createViewerTokenBodySchema = z
  .strictObject({
    scopes: z
      .array(z.enum(VIEWER_SCOPES, { message: `must be among ${VIEWER_SCOPES.join(', ')}` }))
      .min(1)
      .max(VIEWER_SCOPES.length)
      .refine((scopes) => new Set(scopes).size === scopes.length, 'must not repeat a scope')
      .refine((scopes) => scopes.includes('audit:read'), 'must include audit:read: the page reads the trail')
      .default(['audit:read'])
      .meta({
        description:
          "What the page may do: `audit:read` and any of the others, each one of the key's own scopes. A narrowed token's other scopes reach nothing yet: every route that cannot apply its filter refuses it.",
        example: ['audit:read'],
        // What the refinements check, as JSON Schema says it: clients and fuzzers read this, not the refinements.
        uniqueItems: true,
        contains: { const: 'audit:read' },
      }),
    narrowed_to: z
      .strictObject(narrowingShape)
      .default({})
      .meta({
        description:
          'A fixed filter the page and the API both enforce: the token reads only events that match it, and a read that asks for more is refused (403).',
        example: { resource_type: 'patient', resource_id: 'patient-123' },
      }),
    frame_origins: z.array(frameOrigin).max(MAX_FRAME_ORIGINS).default([]).meta({
      description: 'The origins that may put the page in a frame (`frame-ancestors`); none by default.',
    }),
    ttl_seconds: z
      .int()
      .min(60)
      .max(MAX_VIEWER_TTL_S)
      .default(DEFAULT_VIEWER_TTL_S)
      .meta({ description: 'How long the token lives: 60 s to 4 h, 15 minutes by default.', example: 900 }),
  })
  .meta({ id: 'CreateViewerToken' });

export interface ViewerTokenRequest {
  scopes: Scope[];
  narrowedTo: Narrowing;
  frameOrigins: string[];
  ttlSeconds: number;
}

export function parseViewerTokenRequest(
  body: unknown,
): { ok: true; value: ViewerTokenRequest } | { ok: false; errors: FieldError[] } {
  const parsed = createViewerTokenBodySchema.safeParse(body === undefined ? {} : body);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const { scopes, narrowed_to, frame_origins, ttl_seconds } = parsed.data;
  // The token keeps its narrowing in Postgres.
  const unstorable = nulFields(narrowed_to, 'narrowed_to.');
  if (unstorable.length > 0) return { ok: false, errors: unstorable };
  const narrowedTo = Object.fromEntries(
    Object.entries(narrowed_to).filter(([, value]) => value !== undefined),
  ) as Narrowing;
  return {
    ok: true,
    value: { scopes, narrowedTo, frameOrigins: [...new Set(frame_origins)], ttlSeconds: ttl_seconds },
  };
}
