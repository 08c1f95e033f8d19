import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configurationDoc, docPath, envSchemas } from './config-doc.js';

describe('docs/configuration.md', () => {
  it('has a description for every variable of every service', () => {
    const undescribed = Object.entries(envSchemas).flatMap(([service, envSchema]) =>
      Object.entries(envSchema.shape as Record<string, z.ZodType>)
        .filter(([, schema]) => !schema.meta()?.description)
        .map(([name]) => `${service}: ${name}`),
    );
    expect(undescribed).toEqual([]);
  });

  it('is what `npm run docs:config` writes from the schemas', async () => {
    const committed = await readFile(docPath, 'utf8');
    expect(committed, 'run `npm run docs:config`').toBe(await configurationDoc());
  });
});
