import { z } from 'zod';
import { parseEnv, type Env } from './env.js';

/**
 * Variables several deployables read alike, with the settings each makes of them (`kafkaPart`, `postgresPart`,
 * …): declared once here, and listed by each deployable that reads them.
 */
export interface ConfigPart<S extends z.ZodRawShape, T extends object> {
  env: S;
  settings: (env: z.output<z.ZodObject<S>>) => T;
}

export const configPart = <S extends z.ZodRawShape, T extends object>(
  env: S,
  settings: (env: z.output<z.ZodObject<S>>) => T,
): ConfigPart<S, T> => ({ env, settings });

/** Any part, whatever its variables and settings. */
type AnyPart = { env: z.ZodRawShape; settings: (env: never) => object };
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type EnvOf<P> = P extends ConfigPart<infer S, object> ? S : never;
type SettingsOf<P> = P extends { settings: (env: never) => infer T } ? T : never;
/** The variables of every part and the deployable's own, merged. */
type Merged<P extends readonly AnyPart[], S> = Intersection<EnvOf<P[number]>> & S extends infer M extends
  z.ZodRawShape
  ? M
  : never;
/** The settings of every part, merged. */
type PartsSettings<P extends readonly AnyPart[]> = Intersection<SettingsOf<P[number]>>;

/**
 * A deployable's configuration: the environment variables it reads (`envSchema`: its parts' and its own, each
 * described for docs/configuration.md) and `loadConfig`, which makes frozen settings of them (its parts' and those
 * `settings` makes) or names every variable it refuses. Nothing but `loadConfig` reads the environment.
 */
export function serviceConfig<P extends readonly AnyPart[], S extends z.ZodRawShape, T extends object>(
  name: string,
  parts: P,
  shape: S,
  settings: (env: z.output<z.ZodObject<Merged<P, S>>>, ctx: z.RefinementCtx) => T,
) {
  const envSchema = z.object({ ...Object.assign({}, ...parts.map((p) => p.env)), ...shape }) as z.ZodObject<
    Merged<P, S>
  >;
  // Each part reads only its own variables of the whole environment.
  const schema = envSchema.transform(
    (env, ctx) =>
      Object.assign(
        {},
        ...parts.map((p) => p.settings(env as never)),
        settings(env, ctx),
      ) as PartsSettings<P> & T,
  );
  return { envSchema, loadConfig: (env: Env) => parseEnv(name, schema, env) };
}
