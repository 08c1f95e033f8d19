import { describe, expect, it } from 'vitest';
import { ingestEventSchema } from '@audit/shared/contract';
import { autoDisableEvent, autoDisableEventId } from './auto-disable-event.js';

describe('autoDisableEvent', () => {
  const endpoint = { id: 'wh_0123abcd', tenantId: 't1', url: 'https://siem.example.com/in?token=abc' };

  it('has one id per endpoint, so a retried publish is the same event', () => {
    expect(autoDisableEventId('wh_0123abcd')).toBe(autoDisableEventId('wh_0123abcd'));
    expect(autoDisableEventId('wh_0123abcd')).not.toBe(autoDisableEventId('wh_0123abce'));
  });

  it('is a valid ingest event that names the target without its query', () => {
    const event = autoDisableEvent(endpoint, 10);
    expect(ingestEventSchema.safeParse(event).success).toBe(true);
    expect(JSON.stringify(event)).not.toContain('token=abc');
    expect(event.details).toMatchObject({ target: 'https://siem.example.com/in', consecutive_failures: 10 });
  });
});
