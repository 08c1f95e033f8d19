import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { formatTimestamp } from '@audit/shared/contract';
import { errorKind, NotFoundError, ValidationError, zodFieldErrors } from '@audit/shared/platform';
import type { DisplayTemplateStore, TemplateVersion } from '../adapters/display-template-store.js';
import { MAX_TEMPLATES_PER_TENANT, parseSelector, parseTemplate } from '../domain/display-template.js';
import { displayTemplateAuditEvent } from '../domain/display-template-audit-event.js';
import { checkEmptyBody } from '../domain/webhook-request.js';
import { apiCallOf, auditWriter, refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import {
  displayTemplateListSchema,
  displayTemplateSchema,
  displayTemplateView,
  selectorSchema,
  templateBodySchema,
  templateVersionsSchema,
} from '../schemas/display-templates.schema.js';
import { json } from '../schemas/openapi.responses.js';
import type { AuditPublisher } from '@audit/shared/audit-topic';
import { apiRoute, type ApiRoute } from './api-route.js';

const selectorParam = z.object({ selector: selectorSchema });
const MAX_VERSIONS = 100;

export const listDisplayTemplatesRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/display-templates',
  scope: 'audit:read',
  statuses: [403, 422],
  narrowable: true,
  operationId: 'listDisplayTemplates',
  tags: ['Viewer'],
  summary: "The tenant's display templates as they are now.",
  description:
    'What the viewer shows for each event: the template of its action, else of the longest prefix it has.',
  ok: { description: 'The templates.', ...json(displayTemplateListSchema) },
};

export const putDisplayTemplateRoute: ApiRoute = {
  method: 'PUT',
  path: '/audit/display-templates/{selector}',
  scope: 'templates:write',
  statuses: [400, 403, 409, 413, 415, 422],
  operationId: 'putDisplayTemplate',
  tags: ['Viewer'],
  summary: "Set the selector's template: a new version.",
  description: `Every version is kept. At most ${MAX_TEMPLATES_PER_TENANT} templates a tenant (409 past them). Audited as \`admin.display_template.update\`.`,
  requestParams: { path: selectorParam },
  requestBody: { required: true, ...json(templateBodySchema) },
  ok: { description: 'The template as stored.', ...json(displayTemplateSchema) },
};

export const deleteDisplayTemplateRoute: ApiRoute = {
  method: 'DELETE',
  path: '/audit/display-templates/{selector}',
  scope: 'templates:write',
  statuses: [403, 404, 422],
  operationId: 'deleteDisplayTemplate',
  tags: ['Viewer'],
  summary: "Remove the selector's template: a version without one.",
  description: 'Its earlier versions stay in its history. Audited as `admin.display_template.delete`.',
  requestParams: { path: selectorParam },
  okStatus: 204,
  ok: { description: 'Removed.' },
};

export const displayTemplateVersionsRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/display-templates/{selector}/versions',
  scope: 'audit:read',
  statuses: [403, 404, 422],
  operationId: 'listDisplayTemplateVersions',
  tags: ['Viewer'],
  summary: "The selector's template, every version, newest first.",
  description: `At most the ${MAX_VERSIONS} latest. 404 when the selector never had a template.`,
  requestParams: { path: selectorParam },
  ok: { description: 'The versions.', ...json(templateVersionsSchema) },
};

export interface DisplayTemplateRoutesOptions {
  displayTemplates: DisplayTemplateStore;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
}

class TemplateLimitError extends errorKind(409, 'limit_reached') {}

/** The path's selector, or a 422 saying what one is. */
function selectorOf(request: FastifyRequest<{ Params: { selector: string } }>): string {
  refuseUnknownQuery(request.query);
  const selector = request.params.selector;
  if (!parseSelector(selector)) {
    throw new ValidationError('Invalid selector.', [
      { field: 'selector', message: 'must be an action such as phi.read, a prefix such as phi.*, or *' },
    ]);
  }
  return selector;
}

const noTemplate = () => new NotFoundError('No display template for this selector.');

export function displayTemplateRoutes(app: FastifyInstance, opts: DisplayTemplateRoutesOptions): void {
  const audit = auditWriter(opts);
  const audited = (request: FastifyRequest) => (version: TemplateVersion) =>
    audit(displayTemplateAuditEvent(apiCallOf(request), version));
  const by = (request: FastifyRequest) => `api_key:${request.principal!.prefix}`;

  apiRoute(app, listDisplayTemplatesRoute, async (request) => {
    refuseUnknownQuery(request.query);
    const current = await opts.displayTemplates
      .current(request.principal!.tenantId)
      .catch(unavailable('postgres'));
    return displayTemplateListSchema.parse({
      templates: current.map((t) => displayTemplateView({ ...t, template: t.template! })),
    });
  });

  apiRoute<{ Params: { selector: string } }>(app, putDisplayTemplateRoute, async (request) => {
    const selector = selectorOf(request);
    const body = templateBodySchema.safeParse(request.body ?? {});
    if (!body.success) throw new ValidationError('Invalid display template.', zodFieldErrors(body.error));
    const parsed = parseTemplate(body.data.template);
    if (!parsed.ok) {
      throw new ValidationError('Invalid display template.', [{ field: 'template', message: parsed.error }]);
    }
    const stored = await opts.displayTemplates
      .put(
        request.principal!.tenantId,
        { selector, template: body.data.template, by: by(request) },
        MAX_TEMPLATES_PER_TENANT,
        audited(request),
      )
      .catch(unavailable('postgres'));
    if (!stored) {
      throw new TemplateLimitError(
        `A tenant has at most ${MAX_TEMPLATES_PER_TENANT} display templates; remove one before adding another.`,
      );
    }
    return displayTemplateSchema.parse(displayTemplateView({ ...stored, template: body.data.template }));
  });

  apiRoute<{ Params: { selector: string } }>(app, deleteDisplayTemplateRoute, async (request, reply) => {
    const selector = selectorOf(request);
    const errors = checkEmptyBody(request.body);
    if (errors.length > 0) throw new ValidationError('Delete takes no body.', errors);
    const removed = await opts.displayTemplates
      .remove(request.principal!.tenantId, selector, by(request), audited(request))
      .catch(unavailable('postgres'));
    if (!removed) throw noTemplate();
    return reply.code(204).send();
  });

  apiRoute<{ Params: { selector: string } }>(app, displayTemplateVersionsRoute, async (request) => {
    const selector = selectorOf(request);
    const versions = await opts.displayTemplates
      .versions(request.principal!.tenantId, selector, MAX_VERSIONS)
      .catch(unavailable('postgres'));
    if (versions.length === 0) throw noTemplate();
    return templateVersionsSchema.parse({
      selector,
      versions: versions.map((v) => ({
        version: v.version,
        template: v.template,
        changed_at: formatTimestamp(v.changed_at.getTime()),
        changed_by: v.changed_by,
      })),
    });
  });
}
