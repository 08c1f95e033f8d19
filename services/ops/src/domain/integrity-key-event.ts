import type { IntegrityKeyRecord } from '@audit/shared/integrity';
import type { Operator } from './key-audit-event.js';

/**
 * The audit event of a signing key change, one per tenant whose tree the key signs (docs/integrity.md "Signing
 * keys"): admin.integrity.key.create for the first key, admin.integrity.key.rotate for each that replaces one.
 */
export function integrityKeyEvent(
  tenant: string,
  action: 'admin.integrity.key.create' | 'admin.integrity.key.rotate',
  key: IntegrityKeyRecord,
  replaces: string | null,
  operator: Operator,
) {
  return {
    tenant_id: tenant,
    action,
    user_id: operator.id,
    user_role: 'operator',
    resource_type: 'integrity_key',
    resource_id: key.name,
    phi_involved: false,
    success: true,
    user_agent: 'audit-ops-cli',
    details: { verifier_key: key.verifier_key, ...(replaces ? { replaces } : {}) },
  };
}
