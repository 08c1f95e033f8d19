import { z } from 'zod';

declare module 'zod' {
  interface GlobalMeta {
    /**
     * What docs/configuration.md shows as a variable's default where the schema's own default would mislead: one
     * computed at start, one that depends on another variable, a required secret that `npm start` generates.
     */
    defaultText?: string;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses environment variables with a zod schema; every problem names its variable; the result is frozen. */
export function parseEnv<S extends z.ZodType>(service: string, schema: S, env: Env): Readonly<z.output<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`${service}: invalid configuration\n${lines.join('\n')}`);
  }
  return deepFreeze(parsed.data);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** A bearer-style secret: printable ASCII without spaces, so that it can be sent in a header at all. */
export const secret = (minLength: number) =>
  z
    .string({ message: 'is required' })
    .min(minLength, `must be at least ${minLength} characters`)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

export const logLevel = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('info');

/** `true` or `false`, nothing else: a typo is refused rather than read as false. */
export const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true');
