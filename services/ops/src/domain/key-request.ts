import { SCOPES, type Scope } from '@audit/shared/api-keys';
import { TENANT_ID_PATTERN } from '@audit/shared/contract';
import { parseCidr } from '@audit/shared/platform';

export interface KeyRequest {
  tenant: string;
  scopes: Scope[];
  ipAllow: string[];
  label: string;
}

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** Checks `keys create` options; every problem is listed, nothing is written when any is found. */
export function parseKeyRequest(opts: {
  tenant?: string;
  scopes?: string;
  'ip-allow'?: string;
  label?: string;
}): { ok: true; request: KeyRequest } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const tenant = opts.tenant ?? '';
  if (!TENANT_ID_PATTERN.test(tenant)) errors.push('--tenant is required: 1..64 of [A-Za-z0-9._-]');
  const scopes = [...new Set(list(opts.scopes))];
  if (scopes.length === 0)
    errors.push(`--scopes is required: a comma-separated list of ${SCOPES.join(', ')}`);
  for (const s of scopes) if (!(SCOPES as readonly string[]).includes(s)) errors.push(`unknown scope: ${s}`);
  const ipAllow = list(opts['ip-allow']).map((c) => parseCidr(c) ?? c);
  for (const c of list(opts['ip-allow']))
    if (parseCidr(c) === null) errors.push(`not an IPv4/IPv6 CIDR: ${c}`);
  const label = opts.label ?? '';
  if (label.length > 200) errors.push('--label is at most 200 characters');
  return errors.length > 0
    ? { ok: false, errors }
    : { ok: true, request: { tenant, scopes: scopes as Scope[], ipAllow, label } };
}
