import { describe, expect, it } from 'vitest';
import { parseRetentionSet, parseRetentionShow } from './retention-request.js';

describe('parseRetentionSet', () => {
  it('takes both bounds, or a minimum and no maximum', () => {
    expect(parseRetentionSet({ tenant: 'acme', 'min-days': '30', 'max-days': '400' })).toEqual({
      ok: true,
      request: { tenant: 'acme', policy: { min_days: 30, max_days: 400 } },
    });
    expect(parseRetentionSet({ tenant: 'acme', 'min-days': '2192', 'no-max': true })).toEqual({
      ok: true,
      request: { tenant: 'acme', policy: { min_days: 2192, max_days: null } },
    });
    expect(parseRetentionSet({ tenant: 'acme', 'min-days': '36500', 'max-days': '36500' })).toMatchObject({
      ok: true,
    });
  });

  it.each([
    [{ 'min-days': '0', 'no-max': true }, '--min-days: must be a whole number of days from 1 to 36500'],
    [{ 'min-days': '36501', 'no-max': true }, '--min-days: must be a whole number of days from 1 to 36500'],
    [{ 'min-days': '1e3', 'no-max': true }, '--min-days: must be a whole number of days'],
    [{ 'min-days': '30.5', 'no-max': true }, '--min-days: must be a whole number of days'],
    [{ 'min-days': '-1', 'no-max': true }, '--min-days: must be a whole number of days'],
    [{ 'min-days': '30', 'max-days': '29' }, '--max-days: must not be less than min_days'],
    [{ 'min-days': '30', 'max-days': '' }, '--max-days: must be a whole number of days'],
    [{ 'min-days': '30' }, '--max-days: is required: a number of days, or --no-max for no maximum'],
    [{ 'min-days': '30', 'max-days': '400', 'no-max': true }, '--no-max: cannot be given with --max-days'],
  ])('refuses %j', (options, error) => {
    expect(parseRetentionSet({ tenant: 'acme', ...options })).toEqual({ ok: false, errors: [error] });
  });

  it('names every missing or wrong option', () => {
    expect(parseRetentionSet({ tenant: 'a tenant', 'no-max': false })).toEqual({
      ok: false,
      errors: [
        '--tenant: must be a tenant id: 1..64 of [A-Za-z0-9._-]',
        '--min-days: is required',
        '--max-days: is required: a number of days, or --no-max for no maximum',
      ],
    });
  });
});

describe('parseRetentionShow', () => {
  it('needs the tenant', () => {
    expect(parseRetentionShow({})).toEqual({ ok: false, errors: ['--tenant: is required'] });
  });
});
