import { describe, expect, it } from 'vitest';
import { gatedByGeneration } from './gated.handler.js';
import type { MessageContext } from './tracked-consumer.js';

const ctx = (topic: string, paused: string[]) =>
  ({
    topic,
    partition: 0,
    pause: () => {
      paused.push(topic);
      return () => paused.splice(paused.indexOf(topic), 1);
    },
  }) as unknown as MessageContext;

describe('gatedByGeneration', () => {
  it('handles an open generation, and pauses a held one until it opens, leaving its message unhandled', async () => {
    let open = false;
    let opened!: () => void;
    const gate = {
      isOpen: async (topic: string) => topic === 'g1' || open,
      whenOpen: () => new Promise<void>((resolve) => (opened = resolve)),
    };
    const handled: string[] = [];
    const paused: string[] = [];
    const handle = gatedByGeneration(
      gate,
      async (c) => {
        handled.push(c.topic);
        return true;
      },
      () => false,
    );
    expect(await handle(ctx('g1', paused))).toBe(true);
    expect(await handle(ctx('g2', paused))).toBe(false);
    expect([handled, paused]).toEqual([['g1'], ['g2']]);
    open = true;
    opened();
    await new Promise((r) => setImmediate(r));
    expect(paused).toEqual([]);
    expect(await handle(ctx('g2', paused))).toBe(true);
  });

  it('holds a generation it cannot ask about', async () => {
    const gate = {
      isOpen: () => Promise.reject(new Error('postgres down')),
      whenOpen: async () => undefined,
    };
    expect(
      await gatedByGeneration(
        gate,
        async () => true,
        () => false,
      )(ctx('g2', [])),
    ).toBe(false);
  });
});
