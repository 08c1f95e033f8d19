import { parse } from 'pg-connection-string';
import { describe, expect, it } from 'vitest';
import { serviceDatabaseUrl, serviceLoginSettings } from './service-roles.js';

describe('service roles', () => {
  it("puts the service's role and password in the owner's URL, whatever the password holds", () => {
    const password = 'p@ss:w/rd?#% 1';
    const url = serviceDatabaseUrl(
      'postgres://audit:audit@db.internal:5432/audit?sslmode=require',
      'gateway',
      password,
    );
    expect(parse(url)).toMatchObject({
      user: 'audit_gateway',
      password,
      host: 'db.internal',
      port: '5432',
      database: 'audit',
    });
  });

  it('takes the passwords that are set, and nothing for the others', () => {
    expect(
      serviceLoginSettings({
        GATEWAY_DATABASE_PASSWORD: 'a'.repeat(16),
        NOTARY_DATABASE_PASSWORD: 'b'.repeat(16),
      }),
    ).toEqual({ gateway: 'a'.repeat(16), notary: 'b'.repeat(16) });
  });
});
