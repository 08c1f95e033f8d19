import type { ApiCall } from './api-call.js';

/** docs/viewer.md "Display templates": each change of a template is an admin action, with the version it made. */
export function displayTemplateAuditEvent(
  call: ApiCall,
  version: { selector: string; version: number; template: string | null },
) {
  return {
    tenant_id: call.principal.tenantId,
    action: `admin.display_template.${version.template === null ? 'delete' : 'update'}`,
    user_id: `api_key:${call.principal.prefix}`,
    user_role: 'api_key',
    resource_type: 'display_template',
    resource_id: version.selector,
    phi_involved: false,
    success: true,
    source_ip: call.clientIp,
    user_agent: call.userAgent.slice(0, 1024),
    details: {
      version: version.version,
      ...(version.template === null ? {} : { template: version.template }),
    },
  };
}
