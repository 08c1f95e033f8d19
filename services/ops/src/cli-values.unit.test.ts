import { describe, expect, it } from 'vitest';
import { onlyOptions, type CliValues } from './cli-values.js';

const values = (v: Partial<CliValues>) => ({ json: false, help: false, all: false, ...v }) as CliValues;

describe('onlyOptions', () => {
  it('refuses an option the command does not take, naming it', () => {
    expect(
      onlyOptions(values({ queue: 'webhooks', since: '2026-01-01T00:00:00Z' }), 'dlq redrive', ['queue']),
    ).toEqual(['--since does not apply to dlq redrive']);
  });

  it("accepts the command's own options, --json and --help, and unset flags", () => {
    expect(
      onlyOptions(values({ queue: 'projector', json: true, help: true }), 'dlq list', ['queue']),
    ).toEqual([]);
  });
});
