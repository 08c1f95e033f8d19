import type pg from 'pg';
import {
  apiKeysRepository,
  formatApiKey,
  generateApiKey,
  hashSecret,
  PREFIX_PATTERN,
  PrefixTakenError,
  type ApiKeyEnv,
  type ApiKeyRecord,
  type AuditPublisher,
} from '@audit/shared';
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

/**
 * Runs `change` in a transaction and commits only after its audit event is in Kafka: a key change without its
 * audit event never takes effect.
 */
async function withAuditedTransaction<T>(
  ctx: KeysContext,
  change: (db: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await ctx.pool.connect();
  try {
    await client.query('BEGIN');
    const result = await change(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

async function mint(ctx: KeysContext, request: KeyRequest, rotatedFrom: string | null): Promise<MintedKey> {
  // Eight hex characters collide rarely; a taken prefix just means another draw.
  for (let attempt = 0; attempt < 5; attempt++) {
    const generated = generateApiKey(ctx.env);
    try {
      return await withAuditedTransaction(ctx, async (db) => {
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
      if (!(err instanceof PrefixTakenError)) throw err;
    }
  }
  throw new CliError('could not find a free key prefix after 5 draws');
}

function checkPrefix(prefix: string | undefined): string {
  if (!prefix || !PREFIX_PATTERN.test(prefix))
    throw new CliError("--prefix must be the key's 8 lowercase hex characters", 2);
  return prefix;
}

export const keysCommands = {
  create: (ctx: KeysContext, request: KeyRequest) => mint(ctx, request, null),

  list: (ctx: KeysContext, tenant?: string) => apiKeysRepository.list(ctx.pool, tenant),

  async revoke(
    ctx: KeysContext,
    prefixArg: string | undefined,
  ): Promise<{ record: ApiKeyRecord; changed: boolean }> {
    const prefix = checkPrefix(prefixArg);
    return withAuditedTransaction(ctx, async (db) => {
      const result = await apiKeysRepository.revoke(db, prefix);
      if (!result) throw new CliError(`no key with prefix ${prefix}`);
      if (result.changed)
        await ctx.publisher.publish([keyAuditEvent('admin.key.revoke', result.record, ctx.operator)]);
      return result;
    });
  },

  /** A new key with the old one's tenant, scopes, allow-list and label; the old key stays live until revoked. */
  async rotate(ctx: KeysContext, prefixArg: string | undefined): Promise<MintedKey> {
    const old = await apiKeysRepository.find(ctx.pool, checkPrefix(prefixArg));
    if (!old) throw new CliError(`no key with prefix ${prefixArg}`);
    if (old.revoked_at) throw new CliError(`key ${old.prefix} is revoked; create a new key instead`);
    const request = { tenant: old.tenant_id, scopes: old.scopes, ipAllow: old.ip_allow, label: old.label };
    return mint(ctx, request, old.prefix);
  },
};
