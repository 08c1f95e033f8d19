import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { VIEWER_TOKEN_ID_PATTERN } from '@audit/shared/api-keys';
import { CappedMap, DependencyUnavailableError } from '@audit/shared/platform';
import type { ViewerAssets } from '../adapters/viewer-assets.js';
import type { ViewerTokenStore } from '../adapters/viewer-token-store.js';
import { viewerPageHeaders } from '../domain/viewer-page-headers.js';
import { unavailable } from '../plugins/public-api.plugin.js';

/** Token ids whose frame origins a gateway keeps in memory. */
const KNOWN_IDS = 10_000;

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
  // A token's frame origins never change: each id is looked up once (unknown ones too, as none, since an id is
  // drawn at random when its token is made), so the page's unauthenticated route costs no query when reloaded.
  const framers = new CappedMap<string, string[]>(KNOWN_IDS);
  const originsOf = async (id: string): Promise<string[]> => {
    if (!VIEWER_TOKEN_ID_PATTERN.test(id)) return [];
    let origins = framers.get(id);
    if (!origins) {
      origins = (await opts.viewerTokens.frameOrigins(id).catch(unavailable('postgres'))) ?? [];
      framers.set(id, origins);
    }
    return origins;
  };
  app.get<{ Params: { id: string } }>('/viewer/t/:id', async (request, reply) => {
    if (opts.viewer.page === null) {
      throw new DependencyUnavailableError('viewer', 60, { cause: new Error('the viewer is not built') });
    }
    return reply.headers(viewerPageHeaders(await originsOf(request.params.id))).send(opts.viewer.page);
  });
}
