import { describe, expect, it } from 'vitest';
import { parseTopicRetention } from './topic-retention-request.js';

describe('topics retention options', () => {
  it('takes whole days from a week to a hundred years, --forever, or nothing to show', () => {
    expect(parseTopicRetention({})).toEqual({ ok: true, request: { days: undefined } });
    expect(parseTopicRetention({ days: '30' })).toEqual({ ok: true, request: { days: 30 } });
    expect(parseTopicRetention({ forever: true })).toEqual({ ok: true, request: { days: null } });
    expect(parseTopicRetention({ days: '36500' })).toEqual({ ok: true, request: { days: 36_500 } });
  });

  it('names what is wrong with any other', () => {
    expect(parseTopicRetention({ days: '6' })).toEqual({ ok: false, errors: ['--days: must be at least 7'] });
    expect(parseTopicRetention({ days: '36501' })).toEqual({
      ok: false,
      errors: ['--days: must be at most 36500'],
    });
    for (const days of ['30d', '1e3', '7.5', '-7', ''])
      expect(parseTopicRetention({ days })).toEqual({
        ok: false,
        errors: ['--days: must be a whole number of days'],
      });
    expect(parseTopicRetention({ days: '30', forever: true })).toEqual({
      ok: false,
      errors: ['--forever: cannot be given with --days'],
    });
  });
});
