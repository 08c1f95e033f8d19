import type { RetentionActor } from '@audit/shared/retention';
import type { ApiCall } from './api-call.js';

/**
 * The API key (or the viewer token acting for it) as the actor a change or a read records: the key's prefix, its
 * role, the caller's address and User-Agent.
 */
export const apiKeyActor = (call: ApiCall): RetentionActor => ({
  user_id: `api_key:${call.principal.prefix}`,
  user_role: 'api_key',
  source_ip: call.clientIp,
  user_agent: call.userAgent,
});
