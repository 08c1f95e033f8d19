import { describe, expect, it } from 'vitest';
import { GroupMembership } from './group-membership.js';

describe('GroupMembership', () => {
  it('is lost after a heartbeat says the member is unknown or must rejoin, until the next join', () => {
    const group = new GroupMembership({ insertsSettled: async () => undefined });
    group.heartbeatFailed(new Error('network'));
    expect(group.isLost).toBe(false);
    group.heartbeatFailed(Object.assign(new Error('x'), { type: 'REBALANCE_IN_PROGRESS' }));
    expect(group.isLost).toBe(true);
    group.joined();
    expect(group.isLost).toBe(false);
  });

  it('checks for running inserts once per join, and again after a failed check', async () => {
    let checks = 0;
    let fail = true;
    const group = new GroupMembership({
      insertsSettled: async () => {
        checks++;
        if (fail) throw new Error('clickhouse down');
      },
    });
    await expect(group.settledSinceJoin()).rejects.toThrow('clickhouse down');
    fail = false;
    await group.settledSinceJoin();
    await group.settledSinceJoin();
    expect(checks).toBe(2);
    group.joined();
    await group.settledSinceJoin();
    expect(checks).toBe(3);
  });

  it('calls a write the first of its partitions until one succeeded since the last join', () => {
    const group = new GroupMembership({ insertsSettled: async () => undefined });
    group.joined();
    const first = group.firstSinceJoin(['audit:0', 'audit:1']);
    expect(first.first).toBe(true);
    first.written();
    expect(group.firstSinceJoin(['audit:1']).first).toBe(false);
    expect(group.firstSinceJoin(['audit:1', 'audit:2']).first).toBe(true);
    // A write begun before a join counts for nothing after it: the partitions may have had another owner between.
    const before = group.firstSinceJoin(['audit:3']);
    group.joined();
    before.written();
    expect(group.firstSinceJoin(['audit:0']).first).toBe(true);
    expect(group.firstSinceJoin(['audit:3']).first).toBe(true);
  });
});
