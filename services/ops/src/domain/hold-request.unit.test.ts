import { describe, expect, it } from 'vitest';
import { parseHoldCreate, parseHoldRelease, parseHoldsList } from './hold-request.js';

const ID = '0b6e7c1a-3f7d-4c55-9a43-2f0e8d1b6a10';

describe('parseHoldCreate', () => {
  it('takes a reason and any of the scope options, the times as epoch ms', () => {
    expect(
      parseHoldCreate({
        tenant: 'acme',
        reason: '  Smith v. Acme, case 24-1138 ',
        'user-id': 'dr.jones',
        'resource-id': 'chart-7',
        'patient-id': 'p-1042',
        since: '2025-01-01T00:00:00Z',
        until: '2025-07-01T02:00:00+02:00',
      }),
    ).toEqual({
      ok: true,
      request: {
        tenant: 'acme',
        hold: {
          reason: 'Smith v. Acme, case 24-1138',
          scope: {
            user_id: 'dr.jones',
            resource_id: 'chart-7',
            patient_id: 'p-1042',
            since: Date.UTC(2025, 0, 1),
            until: Date.UTC(2025, 6, 1),
          },
        },
      },
    });
  });

  it('holds every event of the tenant when no scope option is given', () => {
    expect(parseHoldCreate({ tenant: 'acme', reason: 'audit by the state' })).toEqual({
      ok: true,
      request: { tenant: 'acme', hold: { reason: 'audit by the state', scope: {} } },
    });
  });

  it.each([
    [{ reason: '   ' }, '--reason: must not be empty'],
    [{ reason: 'x'.repeat(501) }, '--reason: at most 500 characters'],
    [{ reason: 'r', since: 'last week' }, '--since: must be an RFC 3339'],
    [
      { reason: 'r', since: '2025-02-01T00:00:00Z', until: '2025-02-01T00:00:00Z' },
      '--since: must be earlier than until',
    ],
    [{ reason: 'r', 'patient-id': 'p\u001b[2J' }, '--patient-id: must not contain control characters'],
    [{ reason: 'r', 'user-id': 'u'.repeat(257) }, '--user-id: at most 256 characters'],
    [{ reason: 'r', 'resource-id': '' }, '--resource-id: must not be empty'],
  ])('refuses %j', (options, error) => {
    const parsed = parseHoldCreate({ tenant: 'acme', ...options });
    expect(parsed.ok ? [] : parsed.errors).toEqual([expect.stringContaining(error)]);
  });

  it('names every missing or wrong option', () => {
    expect(parseHoldCreate({ tenant: 'no/such', until: 'soon' })).toEqual({
      ok: false,
      errors: [
        '--tenant: must be a tenant id: 1..64 of [A-Za-z0-9._-]',
        '--reason: is required',
        expect.stringMatching(/^--until: must be an RFC 3339/),
      ],
    });
  });
});

describe('parseHoldRelease', () => {
  it('takes the hold id in either case, as stored', () => {
    expect(parseHoldRelease({ tenant: 'acme', id: ID.toUpperCase(), reason: 'settled' })).toEqual({
      ok: true,
      request: { tenant: 'acme', id: ID, release: { reason: 'settled' } },
    });
  });

  it('names every missing or wrong option', () => {
    expect(parseHoldRelease({ tenant: 'acme', id: 'hold-1' })).toEqual({
      ok: false,
      errors: ['--id: must be a hold id, a UUID', '--reason: is required'],
    });
  });
});

describe('parseHoldsList', () => {
  it('lists the holds in force unless told otherwise', () => {
    expect(parseHoldsList({ tenant: 'acme' })).toEqual({
      ok: true,
      request: { tenant: 'acme', status: 'active' },
    });
    expect(parseHoldsList({ tenant: 'acme', status: 'all' })).toMatchObject({ request: { status: 'all' } });
    expect(parseHoldsList({ tenant: 'acme', status: 'open' })).toEqual({
      ok: false,
      errors: ['--status: must be one of active, released, all'],
    });
  });
});
