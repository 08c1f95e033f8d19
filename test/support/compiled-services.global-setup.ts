import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { compiledApp } from './compiled-app.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The compiled build the tests' service processes run from (compiled-services.setup.ts). */
    servicesApp: string;
  }
}

/**
 * Compiles the services once for the run, as the image does, so that every service a test starts runs compiled
 * JavaScript: through tsx each start spent about 1.5 s more CPU compiling the same sources again (docs/testing.md
 * "Services in tests"). A folder of its own per run, so that runs side by side do not share one.
 */
export default function setup(project: TestProject): () => void {
  const data = fileURLToPath(new URL('../../.data/', import.meta.url));
  mkdirSync(data, { recursive: true });
  const dir = mkdtempSync(join(data, 'test-services-'));
  project.provide('servicesApp', compiledApp(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}
