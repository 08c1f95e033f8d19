import { describe, expect, it } from 'vitest';
import { parseTenantSetName } from './tenant-request.js';

describe('parseTenantSetName', () => {
  it('takes a name of up to 200 characters, counted as Postgres counts them', () => {
    const name = '🏥'.repeat(200);
    expect(parseTenantSetName({ tenant: 'acme', name })).toEqual({
      ok: true,
      request: { tenant: 'acme', name },
    });
  });

  it.each([
    ['', '--name: must not be empty'],
    ['   ', '--name: must not be empty'],
    ['x'.repeat(201), '--name: is at most 200 characters'],
    ['Acme\nClinic', '--name: must be one line without control characters'],
    [' Acme', '--name: must not start or end with white space'],
  ])('refuses the name %j', (name, error) => {
    expect(parseTenantSetName({ tenant: 'acme', name })).toEqual({ ok: false, errors: [error] });
  });

  it('names every missing or wrong option', () => {
    expect(parseTenantSetName({ tenant: 'a tenant' })).toEqual({
      ok: false,
      errors: ['--tenant: must be a tenant id: 1..64 of [A-Za-z0-9._-]', '--name: is required'],
    });
  });
});
