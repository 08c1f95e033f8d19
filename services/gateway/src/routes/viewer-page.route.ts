import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { VIEWER_TOKEN_ID_PATTERN } from '@audit/shared/api-keys';
import { DependencyUnavailableError } from '@audit/shared/platform';
import type { ViewerAssets } from '../adapters/viewer-assets.js';
import type { ViewerTokenStore } from '../adapters/viewer-token-store.js';
import { viewerPageHeaders } from '../domain/viewer-page-headers.js';
import { unavailable } from '../plugins/public-api.plugin.js';

export interface ViewerPageOptions {
  viewer: ViewerAssets;
  viewerTokens: Pick<ViewerTokenStore, 'frameOrigins'>;
}

/**
 * The viewer (docs/viewer.md): its page at `/viewer/t/{token id}`, whose token the URL's fragment carries, and its
 * scripts and styles under `/viewer/assets/`, named by their content's hash so a browser keeps them for good. The
 * page is the same for every token; only who may frame it depends on the id. The page holds nothing of a tenant's:
 * everything it shows, it reads from the API with the token.
 */
export async function viewerPageRoutes(app: FastifyInstance, opts: ViewerPageOptions): Promise<void> {
  await app.register(fastifyStatic, {
    root: opts.viewer.dir,
    prefix: '/viewer/assets/',
    index: false,
    wildcard: true,
    immutable: true,
    maxAge: '365d',
    serve: opts.viewer.page !== null,
  });
  app.get<{ Params: { id: string } }>('/viewer/t/:id', async (request, reply) => {
    if (opts.viewer.page === null) {
      throw new DependencyUnavailableError('viewer', 60, { cause: new Error('the viewer is not built') });
    }
    const id = request.params.id;
    const origins = VIEWER_TOKEN_ID_PATTERN.test(id)
      ? await opts.viewerTokens.frameOrigins(id).catch(unavailable('postgres'))
      : null;
    return reply.headers(viewerPageHeaders(origins ?? [])).send(opts.viewer.page);
  });
}
