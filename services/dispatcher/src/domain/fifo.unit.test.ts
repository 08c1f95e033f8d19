import { describe, expect, it } from 'vitest';
import { Fifo } from './fifo.js';

describe('Fifo', () => {
  it('gives items back in the order they came, across the compaction of its front', () => {
    const fifo = new Fifo<number>();
    const out: number[] = [];
    for (let i = 0; i < 5000; i++) {
      fifo.push(i);
      if (i % 3 === 0) out.push(fifo.shift()!);
    }
    expect(fifo.length).toBe(5000 - out.length);
    while (fifo.length > 0) out.push(fifo.shift()!);
    expect(out).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(fifo.shift()).toBeUndefined();
    expect(fifo.peek()).toBeUndefined();
  });

  it('peeks at the next item without taking it', () => {
    const fifo = new Fifo<string>();
    fifo.push('a');
    fifo.push('b');
    expect(fifo.peek()).toBe('a');
    expect(fifo.shift()).toBe('a');
    expect(fifo.peek()).toBe('b');
    expect(fifo.length).toBe(1);
  });
});
