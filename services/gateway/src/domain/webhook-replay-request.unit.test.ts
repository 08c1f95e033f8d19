import { describe, expect, it } from 'vitest';
import { parseReplayRequest } from './webhook-replay-request.js';

const now = Date.parse('2026-11-26T12:00:00.000Z');
const opts = { now, maxDays: 31 };

describe('parseReplayRequest', () => {
  it('takes a window ending by now, until defaulting to now', () => {
    expect(parseReplayRequest({ since: '2026-11-25T12:00:00Z' }, opts)).toEqual({
      ok: true,
      since: Date.parse('2026-11-25T12:00:00Z'),
      until: now,
    });
    expect(
      parseReplayRequest({ since: '2026-11-25T00:00:00Z', until: '2026-11-26T00:00:00+00:00' }, opts),
    ).toMatchObject({ ok: true, until: Date.parse('2026-11-26T00:00:00Z') });
  });

  it.each([
    [undefined, 'since', 'is required'],
    [{}, 'since', 'is required'],
    [{ since: 'yesterday' }, 'since', 'RFC 3339'],
    [{ since: '1969-12-31T00:00:00Z' }, 'since', 'RFC 3339'],
    [{ since: '2026-11-25T00:00:00Z', until: '2026-11-24T00:00:00Z' }, 'since', 'earlier than until'],
    [{ since: '2026-11-25T00:00:00Z', until: '2026-11-27T00:00:00Z' }, 'until', 'not be later than now'],
    [{ since: '2026-09-01T00:00:00Z' }, 'since', 'at most 31 days'],
    [{ since: '2026-11-25T00:00:00Z', limit: 10 }, '', ''],
    [[], '', ''],
  ])('refuses %j, naming the field', (body, field, message) => {
    const parsed = parseReplayRequest(body, opts);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.length).toBeGreaterThan(0);
    if (field) expect(parsed.errors).toContainEqual({ field, message: expect.stringContaining(message) });
  });
});
