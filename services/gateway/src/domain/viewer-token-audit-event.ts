import { formatTimestamp } from '@audit/shared/contract';
import type { ApiCall } from './api-call.js';
import type { ViewerTokenRequest } from './viewer-token-request.js';

/**
 * docs/viewer.md "Viewer tokens": making and revoking a token are admin actions in the trail, with what the token
 * may do and see; never its secret.
 */
export function viewerTokenAuditEvent(
  call: ApiCall,
  change: 'create' | 'revoke',
  tokenId: string,
  created?: ViewerTokenRequest & { expiresAt: number },
) {
  return {
    tenant_id: call.principal.tenantId,
    action: `admin.viewer_token.${change}`,
    user_id: `api_key:${call.principal.prefix}`,
    user_role: 'api_key',
    resource_type: 'viewer_token',
    resource_id: tokenId,
    phi_involved: false,
    success: true,
    source_ip: call.clientIp,
    user_agent: call.userAgent.slice(0, 1024),
    details: created
      ? {
          scopes: created.scopes,
          narrowed_to: created.narrowedTo,
          frame_origins: created.frameOrigins,
          expires_at: formatTimestamp(created.expiresAt),
        }
      : {},
  };
}
