import type pg from 'pg';
import {
  legalHoldEvent,
  MAX_ACTIVE_HOLDS,
  retentionRepository,
  type HoldCreate,
  type HoldStatus,
  type LegalHold,
} from '@audit/shared/retention';
import type { AuditedContext } from '../contexts.js';
import { operatorActor } from '../domain/retention-actor.js';
import { announcer, committed } from './audited-change.js';
import { CliError } from './cli-error.js';

const PAGE = 500;

export const holdsCommands = {
  /** Every hold of the tenant with that status, newest first: all its pages. */
  async list(pool: pg.Pool, tenant: string, status: HoldStatus): Promise<LegalHold[]> {
    const holds = retentionRepository(pool);
    const all: LegalHold[] = [];
    for (;;) {
      const page = await holds.holds(tenant, status, PAGE, all.at(-1) ?? null);
      all.push(...page);
      if (page.length < PAGE) return all;
    }
  },

  /** Puts a hold in force; committed only once Kafka has its `admin.legal_hold.create` event. */
  async create(ctx: AuditedContext, tenant: string, hold: HoldCreate): Promise<LegalHold> {
    const announce = announcer(ctx);
    const created = await committed(
      retentionRepository(ctx.pool).createHold(tenant, hold, ctx.operator.id, MAX_ACTIVE_HOLDS, (made) =>
        announce(legalHoldEvent(tenant, operatorActor(ctx.operator), made)),
      ),
      'hold',
      `holds list --tenant ${tenant}`,
    );
    if (created === null) {
      throw new CliError(
        `${tenant} has ${MAX_ACTIVE_HOLDS} holds in force, the most a tenant may have: release the ones whose ` +
          'matters ended, or widen one of them (nothing changed)',
      );
    }
    return created;
  },

  /**
   * Releases a hold in force; committed only once Kafka has its `admin.legal_hold.release` event. A hold released
   * already is returned as it is, `released: false`, and nothing is recorded again.
   */
  async release(ctx: AuditedContext, tenant: string, holdId: string, reason: string) {
    const announce = announcer(ctx);
    const released = await committed(
      retentionRepository(ctx.pool).releaseHold(tenant, holdId, { reason, by: ctx.operator.id }, (hold) =>
        announce(legalHoldEvent(tenant, operatorActor(ctx.operator), hold)),
      ),
      'release',
      `holds list --tenant ${tenant} --status all`,
    );
    if (released === null) throw new CliError(`${tenant} has no hold ${holdId}`);
    return released;
  },
};
