import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The import rules of eslint.config.js (docs/architecture.md "Modules"), each shown to fail a deliberate violation
// and to pass the import the rule leaves allowed: a rule that no longer matches anything would pass silently.
const eslint = new ESLint({ cwd: fileURLToPath(new URL('../', import.meta.url)) });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import rules', () => {
  it.each([
    [
      'a service imports another service',
      'services/gateway/src/adapters/example.ts',
      "import { clickhouseSink } from '../../../projector/src/adapters/clickhouse.sink.js';",
    ],
    [
      'a service imports the shared kernel by path',
      'services/ingest/src/example.ts',
      "import { createLogger } from '../../shared/src/platform/logger.js';",
    ],
    [
      'a service imports the old barrel',
      'services/notary/src/example.ts',
      "import { createLogger } from '@audit/shared';",
    ],
    [
      'the shared kernel imports a service',
      'services/shared/src/webhooks/example.ts',
      "import { deliverer } from '../../../dispatcher/src/adapters/deliverer.js';",
    ],
    [
      'a module imports one above it',
      'services/shared/src/platform/kafka/example.ts',
      "import { systemClock } from '../../contract/time.js';",
    ],
    [
      'a feature imports a module it does not stand on',
      'services/shared/src/projection/example.ts',
      "import { webhookClient } from '../webhooks/webhook.client.js';",
    ],
    [
      'a domain folder imports another service',
      'services/gateway/src/domain/example.ts',
      "import { projectBatch } from '../../../projector/src/domain/project-batch.js';",
    ],
    [
      'the domain imports an adapter',
      'services/dispatcher/src/domain/example.ts',
      "import { deliverer } from '../adapters/deliverer.js';",
    ],
    ['the domain imports a driver', 'services/gateway/src/domain/example.ts', "import type pg from 'pg';"],
    [
      'the domain opens a connection',
      'services/gateway/src/domain/example.ts',
      "import { createConnection } from 'node:net';",
    ],
    [
      'the shared kernel imports a published package by path',
      'services/shared/src/integrity/example.ts',
      "import { rootOf } from '../../../../packages/integrity-verifier/src/index.js';",
    ],
    [
      'a test imports a published package by path',
      'test/e2e/example.e2e.test.ts',
      "import { verifyInclusion } from '../../packages/integrity-verifier/src/index.js';",
    ],
    [
      'a published package imports our code',
      'packages/integrity-verifier/src/example.ts',
      "import { rootOf } from '../../../services/shared/src/integrity/index.js';",
    ],
  ])('%s: lint fails', async (_what, filePath, code) => {
    expect(await restricted(filePath, code)).toHaveLength(1);
  });

  it.each([
    [
      'a service imports a named module',
      'services/gateway/src/example.ts',
      "import { createLogger } from '@audit/shared/platform';",
    ],
    [
      'a service imports a published package by its name',
      'services/shared/src/webhooks/example.ts',
      "import { signWebhook } from '@audit-trail/webhook-verifier';",
    ],
    [
      'a module imports one below it',
      'services/shared/src/contract/example.ts',
      "import { sleep } from '../platform/deadline.js';",
    ],
    [
      'the domain imports pure code',
      'services/gateway/src/domain/example.ts',
      "import { BlockList } from 'node:net';",
    ],
    [
      'a service test imports test support',
      'services/gateway/src/example.int.test.ts',
      "import { uniqueNames } from '../../../test/support/names.js';",
    ],
  ])('%s: lint passes', async (_what, filePath, code) => {
    expect(await restricted(filePath, code)).toEqual([]);
  });
});
