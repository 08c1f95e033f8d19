import { z } from 'zod';
import { parseEnv, type Env } from './env.js';

/**
 * A deployable's configuration: the environment variables it reads (`envSchema`, each described for
 * docs/configuration.md) and `loadConfig`, which makes frozen settings of them or names every variable it refuses.
 * Nothing but `loadConfig` reads the environment.
 */
export function serviceConfig<S extends z.ZodRawShape, T>(
  name: string,
  shape: S,
  settings: (env: z.output<z.ZodObject<S>>, ctx: z.RefinementCtx) => T,
) {
  const envSchema = z.object(shape);
  const schema = envSchema.transform(settings);
  return { envSchema, loadConfig: (env: Env): Readonly<T> => parseEnv(name, schema, env) };
}

/** Where a service listens, from its `<NAME>_HOST` and `<NAME>_PORT` (listenersEnv). */
export const listenerSettings = <N extends string>(
  env: Record<`${N}_HOST`, string> & Record<`${N}_PORT`, number>,
  name: N,
) => ({ host: env[`${name}_HOST`], port: env[`${name}_PORT`] });
