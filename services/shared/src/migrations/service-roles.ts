import pg from 'pg';
import { z } from 'zod';

/**
 * The services that use Postgres, each as a role of its own that the migrations make and grant only what the
 * service needs (docs/operations.md "Database roles"). The schema's owner, which `ops migrate` and the other
 * operator commands use, is none of them.
 */
export const DATABASE_SERVICES = [
  'gateway',
  'projector',
  'dispatcher',
  'exporter',
  'notary',
  'custodian',
] as const;
export type DatabaseService = (typeof DATABASE_SERVICES)[number];

/** The service's role (NOLOGIN until `ops migrate` is given its password). */
export const serviceRole = (service: DatabaseService): string => `audit_${service}`;

const passwordVar = (service: DatabaseService) =>
  `${service.toUpperCase() as Uppercase<DatabaseService>}_DATABASE_PASSWORD` as const;

/** `<SERVICE>_DATABASE_PASSWORD` for each service: what `ops migrate` lets its role log in with. */
export const serviceLoginEnv = Object.fromEntries(
  DATABASE_SERVICES.map((service) => [
    passwordVar(service),
    z
      .string()
      .min(16)
      .optional()
      .meta({
        description: `\`ops migrate\` lets the role \`${serviceRole(service)}\` log in with it (docs/operations.md "Database roles")`,
        defaultText: 'unset: the role is left as it is',
      }),
  ]),
) as Record<`${Uppercase<DatabaseService>}_DATABASE_PASSWORD`, z.ZodOptional<z.ZodString>>;

/** The passwords given, per service. */
export function serviceLoginSettings(
  e: Partial<Record<keyof typeof serviceLoginEnv, string>>,
): Partial<Record<DatabaseService, string>> {
  return Object.fromEntries(
    DATABASE_SERVICES.flatMap((service) => {
      const password = e[passwordVar(service)];
      return password === undefined ? [] : [[service, password]];
    }),
  );
}

/** `url` with the service's role and password in place of its user's. */
export function serviceDatabaseUrl(url: string, service: DatabaseService, password: string): string {
  const parsed = new URL(url);
  parsed.username = serviceRole(service);
  // Encoded whole: the setter alone leaves some characters that end a URL's user part as they are.
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/**
 * Lets the role of each service given a password log in with it (run as the schema's owner, which may alter roles
 * as it made them). Returns the roles it changed.
 */
export async function enableServiceLogins(
  databaseUrl: string,
  passwords: Partial<Record<DatabaseService, string>>,
): Promise<string[]> {
  const given = DATABASE_SERVICES.filter((service) => passwords[service] !== undefined);
  if (given.length === 0) return [];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const service of given) {
      // DDL takes no parameters: the role and the password are quoted by the client.
      await client.query(
        `ALTER ROLE ${client.escapeIdentifier(serviceRole(service))} LOGIN PASSWORD ${client.escapeLiteral(passwords[service]!)}`,
      );
    }
    return given.map(serviceRole);
  } finally {
    await client.end();
  }
}
