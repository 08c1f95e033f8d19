import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  FILTER_DIMS,
  FILTER_NAMES,
  filterConditions,
  filterKey,
  filterSlices,
  type EventFilters,
} from '@audit/shared/projection';
import { parseExportRequest, parseListQuery } from './list-query.js';

const SECRET = 'cursor-secret-0123456789abcdef012345';
const position = { ts: 1763719200123, id: '7700d1c0-76f0-4466-8b8d-348775962674' };

/** Two different valid values of every filter, as the list's query string spells them. */
const VALUES: Record<(typeof FILTER_NAMES)[number], [string, string]> = {
  action: ['phi.read', 'phi.query'],
  resource_type: ['claim', 'patient'],
  phi_involved: ['true', 'false'],
  since: ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.001Z'],
  until: ['2026-12-01T00:00:00Z', '2026-12-02T00:00:00Z'],
  user_id: ['u-1', 'u-2'],
  resource_id: ['patient-123', 'patient-124'],
  success: ['true', 'false'],
  source_ip: ['10.0.0.1', '::1'],
  action_prefix: ['phi.', 'admin.'],
  patient_id: ['p-1042', 'p-1043'],
};

const filtersOf = (query: Record<string, string>): EventFilters => {
  const parsed = parseListQuery(query);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.query.filters;
};

describe('the filter table', () => {
  it('binds every filter into the cursor: another value, or none, is refused', () => {
    for (const name of FILTER_NAMES) {
      const [a, b] = VALUES[name];
      const given = filtersOf({ [name]: a });
      const cursor = encodeCursor(position, 'acme', given, SECRET);
      expect(decodeCursor(cursor, 'acme', given, SECRET), name).toEqual(position);
      expect(decodeCursor(cursor, 'acme', filtersOf({ [name]: b }), SECRET), name).toBeNull();
      expect(decodeCursor(cursor, 'acme', {}, SECRET), name).toBeNull();
      expect(
        decodeCursor(encodeCursor(position, 'acme', {}, SECRET), 'acme', given, SECRET),
        name,
      ).toBeNull();
    }
  });

  it('keys every combination of filters apart, and every spelling of one read alike', () => {
    const combination = fc.record(
      Object.fromEntries(FILTER_NAMES.map((n) => [n, fc.constantFrom(undefined, ...VALUES[n])])),
    );
    fc.assert(
      fc.property(combination, combination, (x, y) => {
        const defined = (q: Record<string, string | undefined>) =>
          Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as Record<string, string>;
        const same = JSON.stringify(defined(x)) === JSON.stringify(defined(y));
        return (filterKey('t', filtersOf(defined(x))) === filterKey('t', filtersOf(defined(y)))) === same;
      }),
      { numRuns: 500 },
    );
    expect(filterKey('t', filtersOf({ source_ip: '::ffff:10.0.0.1' }))).toBe(
      filterKey('t', filtersOf({ source_ip: '10.0.0.1' })),
    );
    expect(filterKey('t', filtersOf({ since: '2026-01-01T01:00:00+01:00' }))).toBe(
      filterKey('t', filtersOf({ since: '2026-01-01T00:00:00Z' })),
    );
  });

  it('is the same filters in the list query and in the export body', () => {
    const query = Object.fromEntries(FILTER_NAMES.map((n) => [n, VALUES[n][0]]));
    query.since = '2025-01-01T00:00:00Z';
    const body = Object.fromEntries(
      Object.entries(query).map(([n, v]) => [n, v === 'true' ? true : v === 'false' ? false : v]),
    );
    expect(parseExportRequest({}, body)).toEqual({ ok: true, format: 'json', filters: filtersOf(query) });
  });

  it('gives every filter but the time bounds an access path through the filter index', () => {
    for (const name of FILTER_NAMES) {
      const slices = filterSlices(filtersOf({ [name]: VALUES[name][0] }));
      expect(slices, name).toHaveLength(name === 'since' || name === 'until' ? 0 : 1);
    }
    expect(
      filterSlices(filtersOf({ action_prefix: 'phi.', source_ip: '::ffff:10.0.0.1', success: 'false' })),
    ).toEqual([
      { dim: FILTER_DIMS.success, value: '0' },
      { dim: FILTER_DIMS.source_ip, value: '10.0.0.1' },
      { dim: FILTER_DIMS.action, from: 'phi.', to: 'phi/' },
    ]);
  });

  it('puts one quoted condition per filter on the events table', () => {
    expect(
      filterConditions(
        filtersOf({
          action: 'phi.read',
          action_prefix: 'phi.',
          user_id: "o'brien\\",
          resource_id: 'p-1',
          source_ip: '0:0::1',
          success: 'false',
          phi_involved: 'true',
          since: '1970-01-01T00:00:00.001Z',
        }),
      ),
    ).toEqual([
      "action = 'phi.read'",
      'phi_involved = 1',
      'ts >= 1',
      "user_id = 'o\\'brien\\\\'",
      "resource_id = 'p-1'",
      'success = 0',
      "source_ip = '::1'",
      "action >= 'phi.' AND action < 'phi/'",
    ]);
  });
});
