import type { FastifyInstance } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { type Clock } from '@audit/shared/contract';
import {
  NotFoundError,
  registerJsonBodyParser,
  type Logger,
  createServiceApp,
  type ServiceAppOptions,
} from '@audit/shared/platform';
import type { EventsReader } from './adapters/events.reader.js';
import { publicApiMetrics } from './adapters/public-api.metrics.js';
import type { ViewerTokenStore } from './adapters/viewer-token-store.js';
import { withMethodNotAllowed } from './plugins/method-not-allowed.js';
import { registerPublicApiAuth, type PublicApiAuthOptions } from './plugins/public-api.plugin.js';
import { eventListRoute } from './routes/event-list.route.js';
import { exportRoute, type ExportOptions } from './routes/export.route.js';
import { eventLookupRoute } from './routes/event-lookup.route.js';
import { exportDownloadRoute, type ExportDownloadOptions } from './routes/export-download.route.js';
import { exportJobRoutes, type ExportJobRoutesOptions } from './routes/export-jobs.route.js';
import { integrityRoutes, type IntegrityRoutesOptions } from './routes/integrity.route.js';
import { integrityWindowRoute } from './routes/integrity-window.route.js';
import { describedRoutes } from './routes/api-route.js';
import { openApiRoute } from './routes/openapi.route.js';
import { patientAccessRoutes, type PatientAccessOptions } from './routes/patient-access.route.js';
import { webhookAttemptsRoute } from './routes/webhook-attempts.route.js';
import { webhookReplayRoute, type WebhookReplayOptions } from './routes/webhook-replay.route.js';
import { webhookTestRoute, type WebhookTestOptions } from './routes/webhook-test.route.js';
import { webhookRoutes, type WebhookRoutesOptions } from './routes/webhooks.route.js';
import {
  displayTemplateRoutes,
  type DisplayTemplateRoutesOptions,
} from './routes/display-templates.route.js';
import { legalHoldRoutes } from './routes/legal-holds.route.js';
import { retentionRoutes, type RetentionRoutesOptions } from './routes/retention.route.js';
import { viewerPageRoutes, type ViewerPageOptions } from './routes/viewer-page.route.js';
import { viewerTokenRoutes, type ViewerTokenRoutesOptions } from './routes/viewer-tokens.route.js';
import { API_PREFIX } from './schemas/api-prefix.js';

export interface GatewayAppOptions
  extends
    Omit<PublicApiAuthOptions, 'meter'>,
    WebhookRoutesOptions,
    Pick<WebhookTestOptions, 'testSender'>,
    Pick<WebhookReplayOptions, 'replayLimits'>,
    ExportJobRoutesOptions,
    IntegrityRoutesOptions,
    Pick<ViewerPageOptions, 'viewer'>,
    Pick<ViewerTokenRoutesOptions, 'viewerOrigin'>,
    Pick<DisplayTemplateRoutesOptions, 'displayTemplates'>,
    Pick<RetentionRoutesOptions, 'retention' | 'purges'>,
    Pick<ExportDownloadOptions, 'exportFiles' | 'downloads' | 'minRate'>,
    Pick<ExportOptions, 'exportConcurrency'>,
    Pick<PatientAccessOptions, 'reportEvents' | 'tenantName'>,
    ServiceAppOptions {
  logger: Logger;
  /** The HTTP and public API metrics go here; they are served on a listener of their own (gateway.service.ts). */
  metrics: ServiceAppOptions['metrics'];
  events: Pick<EventsReader, 'findEvent' | 'wasStored' | 'listPage' | 'listKeys'>;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  cursorSecret: string;
  clock: Clock;
  viewerTokens: Pick<ViewerTokenStore, 'find' | 'create' | 'revoke' | 'frameOrigins'>;
}

export async function buildApp(opts: GatewayAppOptions): Promise<FastifyInstance> {
  const app = createServiceApp(opts.logger, opts);
  app.removeContentTypeParser('text/plain');
  registerJsonBodyParser(app);
  openApiRoute(app, describedRoutes(app));
  await viewerPageRoutes(app, opts);
  await app.register(
    async (api) => {
      // Tenant data must not be kept by a shared cache or read by a browser as another type than JSON; set before
      // anything else, so that errors (a 401 included, identical for every cause) carry them too.
      api.addHook('onRequest', async (_request, reply) => {
        void reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff');
      });
      registerPublicApiAuth(api, { ...opts, meter: publicApiMetrics(opts.metrics) });
      // Unknown paths under the API are answered inside it: authenticated and counted like any other request.
      api.setNotFoundHandler(() => {
        throw new NotFoundError('No such endpoint.');
      });
      withMethodNotAllowed(api, () => {
        eventLookupRoute(api, opts.events);
        eventListRoute(api, opts);
        exportRoute(api, opts);
        exportJobRoutes(api, opts);
        integrityRoutes(api, opts);
        integrityWindowRoute(api, opts);
        exportDownloadRoute(api, opts);
        webhookRoutes(api, opts);
        webhookAttemptsRoute(api, opts);
        webhookTestRoute(api, opts);
        webhookReplayRoute(api, opts);
        viewerTokenRoutes(api, opts);
        displayTemplateRoutes(api, opts);
        patientAccessRoutes(api, opts);
        retentionRoutes(api, opts);
        legalHoldRoutes(api, opts);
      });
    },
    { prefix: API_PREFIX },
  );
  return app;
}
