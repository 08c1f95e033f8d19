import type { ApiKeyRecord } from '@audit/shared/api-keys';
import type { MintedKey } from './commands/keys.command.js';

/**
 * Stored text as a terminal may be given it: quoted as JSON, which escapes the C0 controls (an escape sequence
 * starts with one), and with DEL and the C1 controls escaped too, which JSON leaves as they are (U+009B is a CSI).
 */
export const quoted = (text: string) =>
  JSON.stringify(text).replace(/\p{Cc}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

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

/** Rows as aligned columns under a header line. */
export function formatTable(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = [
    columns,
    ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c)))),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => (r[i] as string).length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (c as string).padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const SECOND = 1000;
/** An age as a person reads it: 850 ms, 42 s, 7 min, 3.5 h. */
export function formatAge(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < SECOND) return `${ms} ms`;
  if (ms < 60 * SECOND) return `${Math.round(ms / SECOND)} s`;
  if (ms < 3600 * SECOND) return `${Math.round(ms / 60 / SECOND)} min`;
  return `${(ms / 3600 / SECOND).toFixed(1)} h`;
}
