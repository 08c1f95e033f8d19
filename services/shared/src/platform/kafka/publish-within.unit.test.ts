import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../errors.js';
import { publishWithin } from './publish-within.js';

describe('publishWithin', () => {
  it('passes a publish that settles in time', async () => {
    expect(await publishWithin(Promise.resolve('sent'), 1000)).toBe('sent');
  });

  it('turns a publish that fails or outlasts the deadline into a 503', async () => {
    const failed = publishWithin(Promise.reject(new Error('broker down')), 1000);
    await expect(failed).rejects.toBeInstanceOf(DependencyUnavailableError);
    const hung = publishWithin(new Promise(() => undefined), 1);
    await expect(hung).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});
