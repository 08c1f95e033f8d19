import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from './node-flags.js';

describe('SERVICE_NODE_FLAGS', () => {
  it('are repeated in every service command of docker-compose.yml', () => {
    const compose = readFileSync(new URL('../../../docker-compose.yml', import.meta.url), 'utf8');
    const commands = compose
      .split('\n')
      .filter((line) => /services\/(ingest|gateway|projector|dispatcher)\/src\/main\.ts/.test(line));
    expect(commands).toHaveLength(4);
    const quoted = SERVICE_NODE_FLAGS.map((flag) => `'${flag}'`).join(', ');
    for (const line of commands) expect(line).toContain(`['node', ${quoted}, '--import', 'tsx'`);
  });
});
