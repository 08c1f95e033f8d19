import { z } from 'zod';

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

export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

export const secret = (minLength: number) =>
  z.string({ message: 'is required' }).min(minLength, `must be at least ${minLength} characters`);

export const logLevel = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('info');

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `1m,5m,30m,2h,12h` style lists, as decisions.md writes the webhook schedule. */
export function parseDurationMs(text: string): number | null {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  return m ? Number(m[1]) * UNITS[m[2]!]! : null;
}

export const durationList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const values = text.split(',').map(parseDurationMs);
      if (values.some((v) => v === null)) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list like 1m,5m,30m,2h,12h' });
        return z.NEVER;
      }
      return values as number[];
    });
