import type { Principal } from './authenticate.js';

/** Who made an API call, as the audit events the gateway writes record it. */
export interface ApiCall {
  principal: Principal;
  clientIp: string;
  userAgent: string;
}
