import { describe, expect, it } from 'vitest';
import { parseExportRequest, parseListQuery } from './list-query.js';

describe('parseListQuery', () => {
  it('applies the default limit and parses every filter', () => {
    expect(parseListQuery({})).toEqual({ ok: true, query: { filters: {}, limit: 100 } });
    expect(
      parseListQuery({
        action: 'phi.read',
        resource_type: 'claim',
        phi_involved: 'false',
        since: '2026-11-01T00:00:00Z',
        until: '2026-11-02T00:00:00+01:00',
        limit: '1000',
        cursor: 'abc.def',
      }),
    ).toEqual({
      ok: true,
      query: {
        filters: {
          action: 'phi.read',
          resource_type: 'claim',
          phi_involved: false,
          since: Date.UTC(2026, 10, 1),
          until: Date.UTC(2026, 10, 1, 23),
        },
        limit: 1000,
        cursor: 'abc.def',
      },
    });
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '1001' }, 'limit'],
    [{ limit: '10.5' }, 'limit'],
    [{ limit: '-1' }, 'limit'],
    [{ phi_involved: 'yes' }, 'phi_involved'],
    [{ action: 'PHI.READ' }, 'action'],
    [{ since: 'yesterday' }, 'since'],
    [{ until: '2026-11-01' }, 'until'],
    [{ since: '2026-11-02T00:00:00Z', until: '2026-11-01T00:00:00Z' }, 'since'],
    [{ since: '2026-11-01T00:00:00Z', until: '2026-11-01T00:00:00Z' }, 'since'],
    [{ acton: 'phi.read' }, 'acton'],
    [{ action: ['phi.read', 'phi.query'] }, 'action'],
    [{ cursor: '' }, 'cursor'],
    [{ user_id: '' }, 'user_id'],
    [{ user_id: 'x'.repeat(257) }, 'user_id'],
    [{ resource_id: 'p\uD800' }, 'resource_id'],
    [{ resource_type: '\uDC00' }, 'resource_type'],
    [{ success: '1' }, 'success'],
    [{ source_ip: 'localhost' }, 'source_ip'],
    [{ source_ip: '10.0.0.256' }, 'source_ip'],
    [{ action_prefix: 'PHI.' }, 'action_prefix'],
    [{ action_prefix: 'phi%' }, 'action_prefix'],
    [{ action_prefix: '' }, 'action_prefix'],
  ])('refuses %j naming %s', (query, field) => {
    const result = parseListQuery(query);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.field)).toContain(field);
  });
});

describe('parseExportRequest', () => {
  it('takes json by default and an absent or empty body as no filters', () => {
    expect(parseExportRequest({}, undefined)).toEqual({ ok: true, format: 'json', filters: {} });
    expect(parseExportRequest({ format: 'ndjson' }, {})).toEqual({ ok: true, format: 'ndjson', filters: {} });
  });

  it('takes the list filters with JSON types', () => {
    expect(
      parseExportRequest({}, { action: 'phi.read', phi_involved: false, until: '2026-11-01T00:00:00Z' }),
    ).toEqual({
      ok: true,
      format: 'json',
      filters: { action: 'phi.read', phi_involved: false, until: Date.UTC(2026, 10, 1) },
    });
  });

  it.each([
    [{ format: 'csv' }, {}, 'format'],
    [{ format: 'json', limit: '5' }, {}, 'limit'],
    [{}, { limit: 10 }, 'limit'],
    [{}, { cursor: 'x' }, 'cursor'],
    [{}, { phi_involved: 'true' }, 'phi_involved'],
    [{}, { success: 'false' }, 'success'],
    [{}, { source_ip: 'not an address' }, 'source_ip'],
    [{}, { user_id: 7 }, 'user_id'],
    [{}, { since: '2026-11-02T00:00:00Z', until: '2026-11-01T00:00:00Z' }, 'since'],
    [{}, [], '(body)'],
    [{}, null, '(body)'],
    [{}, 'everything', '(body)'],
  ])('refuses query %j with body %j, naming %s', (query, body, field) => {
    const result = parseExportRequest(query, body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.field)).toContain(field);
  });

  it('says the whole rule of a time it refuses, the years it allows included', () => {
    const result = parseListQuery({ since: '1969-12-31T23:59:59Z' });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors).toEqual([
        { field: 'since', message: expect.stringContaining('from 1970-01-01T00:00:00Z') },
      ]);
  });
});
