import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from './node-flags.js';

describe('SERVICE_NODE_FLAGS', () => {
  it('are repeated in every service command of docker-compose.yml', () => {
    const compose = readFileSync(new URL('../../../../docker-compose.yml', import.meta.url), 'utf8');
    // Each service's command array, however the formatter wrapped it, as one line.
    const commands = [...compose.matchAll(/command:\s*\[([^\]]*)\]/g)]
      .map((m) => m[1]!.replace(/\s+/g, ' ').replace(/,\s*$/, '').trim())
      .filter((command) =>
        /services\/(ingest|gateway|projector|dispatcher|exporter|notary|custodian)\/src\/main\.js/.test(
          command,
        ),
      );
    expect(commands).toHaveLength(7);
    const quoted = SERVICE_NODE_FLAGS.map((flag) => `'${flag}'`).join(', ');
    for (const command of commands) expect(command).toMatch(new RegExp(`^'node', ${quoted}, 'services/`));
  });
});
