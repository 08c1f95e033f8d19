import type { RetentionActor } from '@audit/shared/retention';
import type { ApiCall } from './api-call.js';

/** Who changes a retention policy or a hold through the API, as the record and its audit event name them: the key. */
export const retentionActor = (call: ApiCall): RetentionActor => ({
  user_id: `api_key:${call.principal.prefix}`,
  user_role: 'api_key',
  source_ip: call.clientIp,
  user_agent: call.userAgent,
});
