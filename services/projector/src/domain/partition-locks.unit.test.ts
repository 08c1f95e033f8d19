import { describe, expect, it } from 'vitest';
import { PartitionLocks } from './partition-locks.js';

/** A write that records when it starts and ends, and ends when told. */
function gatedWrite(log: string[], name: string) {
  let finish!: () => void;
  const gate = new Promise<void>((resolve) => (finish = resolve));
  return {
    finish,
    write: async () => {
      log.push(`${name} start`);
      await gate;
      log.push(`${name} end`);
      return name;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('PartitionLocks', () => {
  it('runs a write of a partition only after the earlier write of that partition settled', async () => {
    const locks = new PartitionLocks();
    const log: string[] = [];
    const first = gatedWrite(log, 'first');
    const second = gatedWrite(log, 'second');
    const a = locks.run(['t:0', 't:1'], first.write);
    const b = locks.run(['t:1'], second.write);
    await tick();
    expect(log).toEqual(['first start']);
    second.finish();
    first.finish();
    expect(await Promise.all([a, b])).toEqual(['first', 'second']);
    expect(log).toEqual(['first start', 'first end', 'second start', 'second end']);
  });

  it('runs writes of other partitions side by side, and releases a partition whose write failed', async () => {
    const locks = new PartitionLocks();
    const log: string[] = [];
    const other = gatedWrite(log, 'other');
    const running = locks.run(['t:2'], other.write);
    await expect(
      locks.run(['t:0'], async () => {
        throw new Error('clickhouse down');
      }),
    ).rejects.toThrow('clickhouse down');
    expect(await locks.run(['t:0'], async () => 'retried')).toBe('retried');
    expect(log).toEqual(['other start']);
    other.finish();
    expect(await running).toBe('other');
  });

  it('lets a waiting write go once every partition it needs is free', async () => {
    const locks = new PartitionLocks();
    const log: string[] = [];
    const x = gatedWrite(log, 'x');
    const y = gatedWrite(log, 'y');
    const z = gatedWrite(log, 'z');
    const rx = locks.run(['t:0'], x.write);
    const ry = locks.run(['t:1'], y.write);
    const rz = locks.run(['t:0', 't:1'], z.write);
    await tick();
    x.finish();
    await rx;
    await tick();
    expect(log).toEqual(['x start', 'y start', 'x end']);
    y.finish();
    z.finish();
    await Promise.all([ry, rz]);
    expect(log.slice(3)).toEqual(['y end', 'z start', 'z end']);
  });
});
