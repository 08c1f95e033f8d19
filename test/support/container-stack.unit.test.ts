import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { containerImages, UPSTREAM_IMAGES } from './container-stack.js';

const compose = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');

describe('the containers path of the tests', () => {
  it('starts the upstream images docker-compose.yml names, behind the same variables', () => {
    const defaults = Object.fromEntries(
      [...compose.matchAll(/image: \$\{([A-Z0-9_]+):-([^}]+)\}/g)].map((m) => [m[1], m[2]]),
    );
    expect(defaults).toMatchObject({
      KAFKA_IMAGE: UPSTREAM_IMAGES.kafka,
      CLICKHOUSE_IMAGE: UPSTREAM_IMAGES.clickhouse,
      POSTGRES_IMAGE: UPSTREAM_IMAGES.postgres,
      S3PROXY_IMAGE: UPSTREAM_IMAGES.s3proxy,
    });
  });

  it('takes the images the environment names, and the upstream ones for the rest', () => {
    expect(containerImages({ KAFKA_IMAGE: 'localhost/audit-kafka:3.9.1', CLICKHOUSE_IMAGE: '' })).toEqual({
      ...UPSTREAM_IMAGES,
      kafka: 'localhost/audit-kafka:3.9.1',
    });
  });
});
