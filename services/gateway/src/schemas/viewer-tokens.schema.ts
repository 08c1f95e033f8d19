import { z } from 'zod';
import { VIEWER_SCOPES } from '../domain/viewer-token-request.js';
import { timestampSchema } from './read-api.schema.js';

export const viewerTokenIdSchema = z
  .string()
  .regex(/^[0-9a-f]{16}$/)
  .meta({ description: "The token's id: 16 lowercase hex; not secret.", example: '3f9a0c12d4e5b6a7' });

const scopesSchema = z.array(z.enum(VIEWER_SCOPES));
const narrowedToSchema = z
  .record(z.string(), z.string())
  .meta({ description: 'The fixed filter the token is held to; empty when it is not narrowed.' });
const expiresAtSchema = timestampSchema.meta({ description: 'When the token stops working.' });

/** A viewer token as the page asks about its own, without its secret. */
export const viewerTokenSchema = z
  .object({
    id: viewerTokenIdSchema,
    expires_at: expiresAtSchema,
    scopes: scopesSchema,
    narrowed_to: narrowedToSchema,
  })
  .meta({ id: 'ViewerTokenSelf' });

/** docs/viewer.md "Viewer tokens": what a tenant's backend hands to a browser. */
export const createdViewerTokenSchema = z
  .object({
    id: viewerTokenIdSchema,
    token: z
      .string()
      .regex(/^vt_(live|test)_[0-9a-f]{16}_[0-9a-f]{32}$/)
      .meta({ description: 'The bearer token; returned only here. Give it to one browser, never log it.' }),
    url: z.string().meta({
      description:
        "The viewer page for it, with the token in the URL's fragment, which browsers never send to a server: put it in an iframe or a link.",
      example: 'https://audit.example.com/viewer/t/3f9a0c12d4e5b6a7#token=vt_live_…',
    }),
    expires_at: expiresAtSchema,
    scopes: scopesSchema,
    narrowed_to: narrowedToSchema,
    frame_origins: z.array(z.string()),
  })
  .meta({ id: 'ViewerToken' });
