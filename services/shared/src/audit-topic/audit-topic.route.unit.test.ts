import type { Admin } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger.js';
import { AuditTopicRoute } from './audit-topic.route.js';

const base = 't.audit.events.v1';
const g2 = `${base}.g2`;
const sealed = Object.assign(new Error('too large'), { type: 'MESSAGE_TOO_LARGE' });

/** A broker's view: each look at the configs takes the next state in turn (the last one stays). */
function broker(states: Record<string, string>[]) {
  let looks = 0;
  const admin = {
    listTopics: async () => Object.keys(states[Math.min(looks, states.length - 1)]!).concat('other'),
    describeConfigs: async ({ resources }: { resources: { name: string }[] }) => {
      const now = states[Math.min(looks++, states.length - 1)]!;
      return {
        throttleTime: 0,
        resources: resources.map((r) => ({
          resourceName: r.name,
          configEntries: [{ configName: 'max.message.bytes', configValue: now[r.name] }],
        })),
      };
    },
  };
  return admin as unknown as Pick<Admin, 'listTopics' | 'describeConfigs' | 'alterConfigs'>;
}

const opts = { pollMs: 1, waitMs: 1000, logger: createLogger('test', 'silent') };

async function started(admin: ReturnType<typeof broker>, waitMs = 1000) {
  const route = new AuditTopicRoute(admin, base, { ...opts, waitMs });
  await route.refresh();
  return route;
}

describe('AuditTopicRoute', () => {
  it('starts on the oldest open generation, or on the base topic when there is none yet', async () => {
    expect((await started(broker([{ [base]: '4194304', [g2]: '0' }]))).current()).toBe(base);
    expect((await started(broker([{}]))).current()).toBe(base);
  });

  it('moves to the next generation once it opens after the one written was sealed', async () => {
    const admin = broker([
      { [base]: '4194304', [g2]: '0' },
      { [base]: '0', [g2]: '0' },
      { [base]: '0', [g2]: '0' },
      { [base]: '0', [g2]: '4194304' },
    ]);
    const route = await started(admin);
    expect(await route.moved(base, sealed)).toBe(true);
    expect(route.current()).toBe(g2);
  });

  it('leaves a refusal that no seal explains, or any other error, to the caller', async () => {
    const route = await started(broker([{ [base]: '4194304' }]));
    expect(await route.moved(base, sealed)).toBe(false);
    expect(await route.moved(base, new Error('broker down'))).toBe(false);
    expect(route.current()).toBe(base);
  });

  it('gives up when the next generation does not open in time, or once its callers stopped waiting', async () => {
    const admin = () =>
      broker([
        { [base]: '4194304', [g2]: '0' },
        { [base]: '0', [g2]: '0' },
      ]);
    expect(await (await started(admin(), 20)).moved(base, sealed)).toBe(false);
    expect(await (await started(admin(), 60_000)).moved(base, sealed, Date.now() + 20)).toBe(false);
  });
});
