import type pg from 'pg';
import {
  apiKeysRepository,
  formatApiKey,
  generateApiKey,
  hashSecret,
  InvalidCidrError,
  PREFIX_PATTERN,
  PrefixTakenError,
  type ApiKeyEnv,
  type ApiKeyRecord,
} from '@audit/shared/api-keys';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { CommitFailedError, inTransaction } from '@audit/shared/platform';
import { keyAuditEvent, type Operator } from '../domain/key-audit-event.js';
import type { KeyRequest } from '../domain/key-request.js';
import { CliError } from './cli-error.js';

export interface KeysContext {
  pool: pg.Pool;
  publisher: Pick<AuditPublisher, 'publish'>;
  pepper: string;
  env: ApiKeyEnv;
  operator: Operator;
}

export interface MintedKey extends ApiKeyRecord {
  /** The full key: shown once, never stored. */
  key: string;
}

/** Checked before anything connects: a wrong argument is a usage error whatever state Kafka is in. */
export function checkPrefix(prefix: string | undefined): string {
  if (!prefix || !PREFIX_PATTERN.test(prefix)) {
    throw new CliError("--prefix must be the key's 8 lowercase hex characters", 2);
  }
  return prefix;
}

/** A key change is committed only after Kafka has its audit event (inTransaction). */
function withAuditedTransaction<T>(ctx: KeysContext, change: (db: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(ctx.pool, change).catch((err: unknown) => {
    if (!(err instanceof CommitFailedError)) throw err;
    throw new CliError(
      `the audit event was written, but the change could not be committed (${err.message}); ` +
        'nothing changed: check the key with "keys list" and repeat the command',
    );
  });
}

async function mint(
  ctx: KeysContext,
  request: KeyRequest,
  rotatedFrom: string | null,
  precheck: (db: pg.PoolClient) => Promise<void> = async () => undefined,
): Promise<MintedKey> {
  // Eight hex characters collide rarely; a taken prefix just means another draw.
  for (let attempt = 0; attempt < 5; attempt++) {
    const generated = generateApiKey(ctx.env);
    try {
      return await withAuditedTransaction(ctx, async (db) => {
        await precheck(db);
        const record = await apiKeysRepository.insert(db, {
          prefix: generated.prefix,
          env: ctx.env,
          tenant_id: request.tenant,
          scopes: request.scopes,
          ip_allow: request.ipAllow,
          label: request.label,
          secret_hash: hashSecret(generated.secret, ctx.pepper),
          rotated_from: rotatedFrom,
        });
        await ctx.publisher.publish([keyAuditEvent('admin.key.create', record, ctx.operator)]);
        return { ...record, key: formatApiKey(generated) };
      });
    } catch (err) {
      if (err instanceof InvalidCidrError) throw new CliError(`--ip-allow: ${err.message}`, 2);
      if (!(err instanceof PrefixTakenError)) throw err;
    }
  }
  throw new CliError('could not find a free key prefix after 5 draws');
}

export const keysCommands = {
  create: (ctx: KeysContext, request: KeyRequest) => mint(ctx, request, null),

  list: (pool: pg.Pool, tenant?: string) => apiKeysRepository.list(pool, tenant),

  revoke(ctx: KeysContext, prefix: string): Promise<{ record: ApiKeyRecord; changed: boolean }> {
    return withAuditedTransaction(ctx, async (db) => {
      const result = await apiKeysRepository.revoke(db, prefix);
      if (!result) throw new CliError(`no key with prefix ${prefix}`);
      if (result.changed)
        await ctx.publisher.publish([keyAuditEvent('admin.key.revoke', result.record, ctx.operator)]);
      return result;
    });
  },

  /**
   * A new key with the old one's tenant, scopes, allow-list and label; the old key stays live until revoked.
   * The old key is locked in the same transaction, so a concurrent revoke cannot slip in between.
   */
  async rotate(ctx: KeysContext, prefix: string): Promise<MintedKey> {
    const old = await apiKeysRepository.find(ctx.pool, prefix);
    if (!old) throw new CliError(`no key with prefix ${prefix}`);
    const request = { tenant: old.tenant_id, scopes: old.scopes, ipAllow: old.ip_allow, label: old.label };
    return mint(ctx, request, old.prefix, async (db) => {
      const locked = await apiKeysRepository.find(db, prefix, true);
      if (!locked || locked.revoked_at)
        throw new CliError(`key ${prefix} is revoked; create a new key instead`);
      if (locked.env !== ctx.env) {
        throw new CliError(
          `key ${prefix} is a ${locked.env} key; this CLI mints ${ctx.env} keys (API_KEY_ENV)`,
        );
      }
    });
  },
};
