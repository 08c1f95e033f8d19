import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey } from '@audit/shared/api-keys';
import { ReportTooLargeError, type ReportEvent } from '@audit/shared/reports';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import type { GatewayAppOptions } from '../app.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';

const key = generateApiKey('live');
const stored = { ...storedKeyFor(key, STUB_PEPPER), scopes: ['audit:read' as const] };
const NOW = Date.UTC(2026, 10, 30, 9);

const event = (i: number): ReportEvent => ({
  event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  timestampMs: NOW - 1000 * i,
  action: 'phi.read',
  user_id: `u-${i}`,
  user_role: 'nurse',
  resource_type: 'patient',
  resource_id: 'p-1',
  fields_accessed: '["dob"]',
  phi_involved: true,
  source_ip: '',
  justification: '',
  success: true,
  purpose_of_use: 'TREAT',
  recipient: '',
  disclosure: false,
  accounting_exclusion: '',
});

/** The report through the route, its reads and its audit event answered by `overrides`. */
async function report(query: string, overrides: Partial<GatewayAppOptions> = {}) {
  const published: unknown[] = [];
  const app = await buildApp(
    stubAppOptions({
      auth: { pepper: STUB_PEPPER, env: 'live', findKey: async () => stored },
      auditLog: {
        publish: async (events) => {
          published.push(...events);
          return [];
        },
      },
      clock: () => NOW,
      ...overrides,
    }),
  );
  const res = await app.inject({
    method: 'GET',
    url: `/api/v2/public/audit/reports/patient-access?${query}`,
    headers: { authorization: `Bearer ${formatApiKey(key)}` },
  });
  await app.close();
  return { res, published };
}

describe('GET /audit/reports/patient-access, as the route answers', () => {
  it('records the read before it answers, naming the patient and what it gave', async () => {
    const { res, published } = await report('patient_id=p-1&limit=2', {
      reportEvents: async () => [event(0), event(1), event(2)],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ rows: unknown[]; page: { has_more: boolean } }>();
    expect(body.rows).toHaveLength(2);
    expect(body.page.has_more).toBe(true);
    expect(published).toEqual([
      expect.objectContaining({
        action: 'audit.report.patient_access',
        patient_id: 'p-1',
        phi_involved: true,
        details: expect.objectContaining({ mode: 'access', format: 'json', rows: 2 }),
      }),
    ]);
  });

  it('refuses a window of more events than a report holds with 422 naming since, and records nothing', async () => {
    const { res, published } = await report('patient_id=p-1', {
      reportEvents: async () => {
        throw new ReportTooLargeError('too many');
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json<{ details: { field: string }[] }>().details.map((d) => d.field)).toEqual(['since']);
    expect(published).toEqual([]);
  });

  it('answers 503 and sends nothing when ClickHouse, Postgres or Kafka cannot answer', async () => {
    const down = async () => {
      throw new Error('connection refused');
    };
    for (const overrides of [
      { reportEvents: down },
      { tenantName: down },
      { auditLog: { publish: down } },
    ] as Partial<GatewayAppOptions>[]) {
      const { res } = await report('patient_id=p-1', { reportEvents: async () => [event(0)], ...overrides });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.body).not.toContain(event(0).event_id);
    }
  });
});
