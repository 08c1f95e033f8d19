import type { RetentionActor } from '@audit/shared/retention';
import type { Operator } from './key-audit-event.js';

/** The operator as a retention change's audit event names them: as every operator's change does, no address. */
export const operatorActor = (operator: Operator): RetentionActor => ({
  user_id: operator.id,
  user_role: 'operator',
  source_ip: '',
  user_agent: 'audit-ops-cli',
});
