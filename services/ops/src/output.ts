import type { ApiKeyRecord } from '@audit/shared';
import type { MintedKey } from './commands/keys.command.js';

export function formatKeyLine(k: ApiKeyRecord): string {
  const state = k.revoked_at ? `revoked ${k.revoked_at.toISOString()}` : 'live';
  const allow = k.ip_allow.length > 0 ? ` ip-allow ${k.ip_allow.join(',')}` : '';
  return `${k.prefix}  ${k.tenant_id}  ${k.scopes.join(',')}  ${state}${allow}${k.label ? `  "${k.label}"` : ''}`;
}

export function formatMinted(k: MintedKey): string {
  return [
    `key: ${k.key}`,
    '(shown once: only a keyed hash of it is stored)',
    `prefix: ${k.prefix}  tenant: ${k.tenant_id}  scopes: ${k.scopes.join(',')}`,
  ].join('\n');
}
