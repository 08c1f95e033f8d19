import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import {
  integrityKeysRepository,
  SIGNING_KEY_NAME,
  removeSigningKey,
  signingKeyFile,
  verifierKeyOf,
  writeSigningKey,
  type IntegrityKeyRecord,
  type IntegritySettings,
  rawPublicKey,
} from '@audit/shared/integrity';
import { CommitFailedError, inTransaction } from '@audit/shared/platform';
import type { AuditedContext } from '../contexts.js';
import { integrityKeyEvent } from '../domain/integrity-key-event.js';
import { CliError } from './cli-error.js';

export interface IntegrityContext extends AuditedContext {
  settings: IntegritySettings;
  now: () => number;
}

export interface KeyChange {
  key: IntegrityKeyRecord;
  /** The key it replaced (rotate), or null. */
  replaced: string | null;
  /** Where its private half was written. */
  key_file: string;
  /** Tenants whose trail got the change's audit event. */
  tenants: number;
}

// Events of one change go out in requests of this many (the tenants of a large deployment).
const EVENTS_PER_PUBLISH = 500;

/** `<log name>-<UTC date>-<4 random hex>`: unique, and says which log and when. */
export function defaultKeyName(logName: string, now: number): string {
  const day = new Date(now).toISOString().slice(0, 10).replaceAll('-', '');
  return `${logName}-${day}-${randomBytes(2).toString('hex')}`;
}

export function checkKeyName(name: string | undefined): string | undefined {
  if (name !== undefined && !SIGNING_KEY_NAME.test(name))
    throw new CliError('--name must be 1 to 100 letters, digits, dots, underscores or hyphens', 2);
  return name;
}

/**
 * Makes a key and makes it the active one, in one transaction that also writes the change's audit event to the
 * trail of every tenant with a tree: the change is committed only once Kafka has those events. Two changes at
 * once queue on the transaction's lock, so one active key is ever replaced by one other.
 */
async function change(
  ctx: IntegrityContext,
  kind: 'create' | 'rotate',
  name: string | undefined,
): Promise<KeyChange> {
  const keyName = name ?? defaultKeyName(ctx.settings.logName, ctx.now());
  return inTransaction(ctx.pool, async (db) => {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('integrity_keys'))`);
    const active = await integrityKeysRepository.active(db, true);
    if (kind === 'create' && active)
      throw new CliError(`key ${active.name} is active already; "ops integrity keys rotate" replaces it`);
    if (kind === 'rotate' && !active)
      throw new CliError('no key is active; "ops integrity keys create" makes the first');
    const { privateKey } = generateKeyPairSync('ed25519');
    const signer = { name: keyName, privateKey };
    if (active) await integrityKeysRepository.retire(db, active.name);
    const key = await integrityKeysRepository
      .insertActive(db, {
        name: keyName,
        publicKey: rawPublicKey(privateKey),
        verifierKey: verifierKeyOf(signer),
        createdBy: ctx.operator.id,
      })
      .catch((err: unknown) => {
        if ((err as { code?: string }).code === '23505') throw new CliError(`a key named ${keyName} exists`);
        throw err;
      });
    // The file before the events: a key whose file could not be written is no change, and writes no event.
    const file = await writeSigningKey(ctx.settings.keyDir, keyName, privateKey);
    try {
      const { rows } = await db.query<{ tenant_id: string }>(
        'SELECT tenant_id FROM integrity_trees ORDER BY tenant_id',
      );
      const action = kind === 'create' ? 'admin.integrity.key.create' : 'admin.integrity.key.rotate';
      const events = rows.map((r) =>
        integrityKeyEvent(r.tenant_id, action, key, active?.name ?? null, ctx.operator),
      );
      for (let i = 0; i < events.length; i += EVENTS_PER_PUBLISH)
        await ctx.publisher.publish(events.slice(i, i + EVENTS_PER_PUBLISH));
      return { key, replaced: active?.name ?? null, key_file: file, tenants: rows.length };
    } catch (err) {
      await removeSigningKey(ctx.settings.keyDir, keyName);
      throw err;
    }
  }).catch((err: unknown) => {
    if (!(err instanceof CommitFailedError)) throw err;
    throw new CliError(
      `the audit events were written, but the change could not be committed (${err.message}); nothing ` +
        `changed, and ${signingKeyFile(ctx.settings.keyDir, keyName)} is not used: check with "integrity keys list"`,
    );
  });
}

export const integrityKeysCommands = {
  create: (ctx: IntegrityContext, name?: string) => change(ctx, 'create', name),
  rotate: (ctx: IntegrityContext, name?: string) => change(ctx, 'rotate', name),

  /** Every key, with whether this machine's key directory holds its private half. */
  async list(ctx: Pick<IntegrityContext, 'pool' | 'settings'>) {
    const keys = await integrityKeysRepository.list(ctx.pool);
    return Promise.all(
      keys.map(async (k) => ({
        ...k,
        private_key_here: await access(signingKeyFile(ctx.settings.keyDir, k.name)).then(
          () => true,
          () => false,
        ),
      })),
    );
  },
};
