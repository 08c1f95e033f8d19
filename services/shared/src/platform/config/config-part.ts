import type { z } from 'zod';

/**
 * Variables several deployables read alike, with the settings each makes of them: declared once (components.ts),
 * and named by each deployable that reads them (`serviceConfig`).
 */
export interface ConfigPart<S extends z.ZodRawShape, T extends object> {
  env: S;
  settings: (env: z.output<z.ZodObject<S>>) => T;
}

export const configPart = <S extends z.ZodRawShape, T extends object>(
  env: S,
  settings: (env: z.output<z.ZodObject<S>>) => T,
): ConfigPart<S, T> => ({ env, settings });
