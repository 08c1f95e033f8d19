import { describe, expect, it } from 'vitest';
import { ConfigError } from '@audit/shared/platform';
import { loadConfig } from './config.js';

describe('ingest loadConfig', () => {
  it('applies defaults and freezes the result', () => {
    const config = loadConfig({ INGEST_TOKEN: 'x'.repeat(16) });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8081, kafka: { brokers: ['127.0.0.1:15092'] } });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.kafka.brokers)).toBe(true);
  });

  it('names every bad or missing variable', () => {
    let error: unknown;
    try {
      loadConfig({ INGEST_PORT: 'eighty', KAFKA_BROKERS: 'nohostport' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/INGEST_TOKEN/);
    expect(message).toMatch(/INGEST_PORT/);
    expect(message).toMatch(/KAFKA_BROKERS/);
  });
});
