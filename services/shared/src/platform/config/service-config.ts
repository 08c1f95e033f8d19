import { z } from 'zod';
import { componentParts, listenerParts, loggingPart } from './components.js';
import type { ConfigPart } from './config-part.js';
import { parseEnv, type Env } from './env.js';

type Component = keyof typeof componentParts;
/** Any part, whatever its variables and settings. */
type AnyPart = { env: z.ZodRawShape; settings: (env: never) => object };
type Listeners = typeof listenerParts;
/** A deployable's parts: logging, the components it names, and its listener if it is a service. */
type PartsOf<N extends string, C extends Component> =
  typeof loggingPart | (typeof componentParts)[C] | (N extends keyof Listeners ? Listeners[N] : never);

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type EnvOf<P> = P extends ConfigPart<infer S, object> ? S : never;
type SettingsOf<P> = P extends { settings: (env: never) => infer T } ? T : never;
/** The variables of every part and the deployable's own, merged. */
type Merged<P, S> = Intersection<EnvOf<P>> & S extends infer M extends z.ZodRawShape ? M : never;

/**
 * A deployable's configuration: the environment variables it reads (`envSchema`: its parts' and its own, each
 * described for docs/configuration.md) and `loadConfig`, which makes frozen settings of them (its parts' and those
 * `settings` makes) or names every variable it refuses. Nothing but `loadConfig` reads the environment. A service
 * named in `listenerParts` listens where its `<NAME>_HOST` and `<NAME>_PORT` say (`host`, `port`).
 */
export function serviceConfig<
  N extends string,
  C extends Component,
  S extends z.ZodRawShape,
  T extends object,
>(
  name: N,
  components: readonly C[],
  shape: S,
  settings: (env: z.output<z.ZodObject<Merged<PartsOf<N, C>, S>>>, ctx: z.RefinementCtx) => T,
) {
  const listener: AnyPart | undefined = (listenerParts as Record<string, AnyPart>)[name];
  const parts = [loggingPart, ...components.map((c) => componentParts[c]), ...(listener ? [listener] : [])];
  const envSchema = z.object({ ...Object.assign({}, ...parts.map((p) => p.env)), ...shape }) as z.ZodObject<
    Merged<PartsOf<N, C>, S>
  >;
  // Each part reads only its own variables of the whole environment.
  const schema = envSchema.transform(
    (env, ctx) =>
      Object.assign({}, ...parts.map((p) => p.settings(env as never)), settings(env, ctx)) as Intersection<
        SettingsOf<PartsOf<N, C>>
      > &
        T,
  );
  return { envSchema, loadConfig: (env: Env) => parseEnv(name, schema, env) };
}
