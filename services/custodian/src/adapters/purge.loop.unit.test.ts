import { describe, expect, it } from 'vitest';
import { createLogger } from '@audit/shared/platform';
import { PurgeBusyError, PurgeError, type PurgeCandidate, type PurgeReport } from '@audit/shared/retention';
import { runPurgeLoop } from './purge.loop.js';
import type { CheckOutcome } from './purge.metrics.js';

const HOUR = 3_600_000;
const schedule = { everyMs: 24 * HOUR, retryMs: HOUR, checkMs: 1 };

const report = (tenant: string, purgeId: string | null): PurgeReport => ({
  tenant_id: tenant,
  purged_before: 0,
  purge_id: purgeId,
  holds: 0,
  purged: purgeId === null ? 0 : 3,
  kept: 0,
  export_files: 0,
  dry_run: false,
});

/**
 * The loop over `passes` passes, on a clock of the test's own that moves `stepMs` a pass: what each pass purged,
 * and the outcomes counted.
 */
async function run(
  candidates: PurgeCandidate[],
  purge: (tenant: string, pass: number) => Promise<PurgeReport>,
  passes: number,
  stepMs: number,
) {
  let now = Date.UTC(2026, 11, 1);
  let pass = 0;
  let ended = 0;
  const purged: string[][] = [];
  const outcomes: CheckOutcome[] = [];
  await runPurgeLoop({
    candidates: async () => {
      pass += 1;
      now += stepMs;
      purged.push([]);
      return candidates;
    },
    purge: async (tenant) => {
      purged.at(-1)!.push(tenant);
      return purge(tenant, pass);
    },
    schedule,
    meter: {
      checked: (o) => outcomes.push(o),
      passed: () => {
        ended += 1;
      },
    },
    now: () => now,
    stopping: () => ended >= passes,
    logger: createLogger('test', 'silent'),
  });
  return { purged, outcomes };
}

const never = (tenant: string): PurgeCandidate => ({ tenant_id: tenant, last: null });

describe('runPurgeLoop', () => {
  it('leaves a tenant with nothing to remove alone for a day, and a failed one for an hour', async () => {
    const { purged, outcomes } = await run(
      [never('empty'), never('broken'), never('busy')],
      async (tenant) => {
        if (tenant === 'broken') throw new PurgeError('the file of export job x is not in y');
        if (tenant === 'busy') throw new PurgeBusyError(tenant);
        return report(tenant, null);
      },
      // Passes 30 minutes apart: 50 of them span 25 hours.
      50,
      HOUR / 2,
    );
    const passesOf = (tenant: string) => purged.flatMap((p, i) => (p.includes(tenant) ? [i + 1] : []));
    expect(passesOf('empty')).toEqual([1, 49]);
    expect(passesOf('broken').slice(0, 3)).toEqual([1, 3, 5]);
    // Another purge holds the tenant: looked at again at the next pass.
    expect(passesOf('busy')).toHaveLength(50);
    expect(outcomes.filter((o) => o === 'nothing')).toHaveLength(2);
    expect(outcomes.filter((o) => o === 'busy')).toHaveLength(50);
  });

  it('goes on with the next tenant when one fails with any error, and counts a run as purged', async () => {
    const { purged, outcomes } = await run(
      [never('a'), never('b')],
      async (tenant) => {
        if (tenant === 'a') throw new Error('Code: 341. DB::Exception: a message that may quote a value');
        return report(tenant, 'run-1');
      },
      1,
      0,
    );
    expect(purged).toEqual([['a', 'b']]);
    expect(outcomes).toEqual(['failed', 'purged']);
  });

  it('keeps passing while the tenants cannot be read', async () => {
    let calls = 0;
    await runPurgeLoop({
      candidates: async () => {
        calls += 1;
        throw new Error('connection refused');
      },
      purge: async (tenant) => report(tenant, null),
      schedule,
      meter: { checked: () => undefined, passed: () => undefined },
      now: () => 0,
      stopping: () => calls >= 3,
      logger: createLogger('test', 'silent'),
    });
    expect(calls).toBe(3);
  });
});
