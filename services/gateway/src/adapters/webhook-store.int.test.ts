import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '@audit/shared/migrations';
import { ENDPOINT_CHANGES_CHANNEL, secretBox, type WebhookEndpointRecord } from '@audit/shared/webhooks';
import { uniqueNames } from '../../../../test/support/names.js';
import { freshPostgres } from '../../../../test/support/postgres.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { webhookStore, type AuditChange } from './webhook-store.js';

const names = uniqueNames('webhook-store');
const box = secretBox(Buffer.alloc(32, 7));
let db: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;
let listener: pg.Client;
let store: ReturnType<typeof webhookStore>;
const announced: string[] = [];
const audited: WebhookEndpointRecord[] = [];
const audit: AuditChange = async (endpoint) => {
  audited.push(endpoint);
};

beforeAll(async () => {
  db = await freshPostgres(names);
  await migratePostgres(db.url);
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  listener.on('notification', (n) => announced.push(n.payload ?? ''));
  await listener.query(`LISTEN ${ENDPOINT_CHANGES_CHANNEL}`);
  store = webhookStore(pool, box);
});

afterAll(async () => {
  await listener?.end();
  await pool?.end();
  await db?.drop();
});

async function endpoint(tenant = names.tenant, rate: number | null = 20) {
  const created = await store.create(
    tenant,
    {
      url: 'https://siem.example.com/hook',
      event_filter: ['phi.'],
      patient_filter: ['p-1042'],
      description: 'SIEM',
      rate_limit_per_second: rate,
    },
    audit,
  );
  return created!;
}

describe('webhookStore.update', () => {
  it('changes the given fields only, moves the version on, and announces and audits the change', async () => {
    const { endpoint: before } = await endpoint();
    expect(before.rate_limit_per_second).toBe(20);
    const result = await store.update(
      names.tenant,
      before.id,
      { description: 'new', event_filter: [] },
      audit,
    );
    expect(result).toEqual({
      found: true,
      value: { ...before, description: 'new', event_filter: [], version: before.version + 1 },
    });
    expect(audited.at(-1)).toEqual(result.found && result.value);
    expect((await store.list(names.tenant)).find((e) => e.id === before.id)).toEqual(
      result.found && result.value,
    );
    await waitFor('the announcement', async () => announced.includes(`${before.id}:update`));
  });

  it('removes the rate limit with null, and keeps it when the rate is not given', async () => {
    const { endpoint: before } = await endpoint();
    const kept = await store.update(
      names.tenant,
      before.id,
      { url: 'https://siem.example.com/other' },
      audit,
    );
    expect(kept.found && kept.value).toMatchObject({
      url: 'https://siem.example.com/other',
      rate_limit_per_second: 20,
    });
    const removed = await store.update(names.tenant, before.id, { rate_limit_per_second: null }, audit);
    expect(removed.found && removed.value).toMatchObject({
      url: 'https://siem.example.com/other',
      rate_limit_per_second: null,
      version: before.version + 2,
    });
    const set = await store.update(names.tenant, before.id, { rate_limit_per_second: 10_000 }, audit);
    expect(set.found && set.value.rate_limit_per_second).toBe(10_000);
  });

  it('changes the patient filter, to none too, and keeps it when it is not given', async () => {
    const { endpoint: before } = await endpoint();
    expect(before.patient_filter).toEqual(['p-1042']);
    const kept = await store.update(names.tenant, before.id, { event_filter: [] }, audit);
    expect(kept.found && kept.value.patient_filter).toEqual(['p-1042']);
    const changed = await store.update(names.tenant, before.id, { patient_filter: ['p-1', 'p-2'] }, audit);
    expect(changed.found && changed.value).toMatchObject({
      event_filter: [],
      patient_filter: ['p-1', 'p-2'],
    });
    const emptied = await store.update(names.tenant, before.id, { patient_filter: [] }, audit);
    expect(emptied.found && emptied.value.patient_filter).toEqual([]);
    expect((await store.list(names.tenant)).find((e) => e.id === before.id)?.patient_filter).toEqual([]);
    // The schema holds the bound the API checks, for whatever writes the table besides the gateway.
    await expect(
      pool.query(
        `UPDATE webhook_endpoints SET patient_filter = array_fill('p'::text, ARRAY[51]) WHERE id = $1`,
        [before.id],
      ),
    ).rejects.toMatchObject({ code: '23514' });
  });

  it('changes an inactive endpoint without enabling it', async () => {
    const { endpoint: before } = await endpoint();
    await store.disable(names.tenant, before.id, audit);
    const result = await store.update(names.tenant, before.id, { description: 'retired' }, audit);
    expect(result.found && result.value).toMatchObject({ active: false, description: 'retired' });
  });

  it('changes nothing when the audit event is not published, nor for another tenant', async () => {
    const { endpoint: before } = await endpoint();
    const failing: AuditChange = async () => {
      throw new Error('kafka down');
    };
    await expect(store.update(names.tenant, before.id, { description: 'lost' }, failing)).rejects.toThrow(
      'kafka down',
    );
    expect(await store.update('someone-else', before.id, { description: 'theirs' }, audit)).toEqual({
      found: false,
      reason: 'foreign',
    });
    expect(await store.update(names.tenant, 'wh_ffffffff', { description: 'x' }, audit)).toEqual({
      found: false,
      reason: 'missing',
    });
    expect((await store.list(names.tenant)).find((e) => e.id === before.id)).toEqual(before);
  });
});

describe('webhookStore.signing', () => {
  it('opens the current secret, and the replaced one only while its overlap runs', async () => {
    const { endpoint: created, secret: first } = await endpoint();
    expect(await store.signing(names.tenant, created.id, Date.now())).toEqual({
      found: true,
      value: { endpoint: created, secrets: [first] },
    });
    const rotated = await store.rotateSecret(names.tenant, created.id, 3600, audit);
    const second = rotated.found ? rotated.value.secret : '';
    const during = await store.signing(names.tenant, created.id, Date.now());
    expect(during.found && during.value.secrets).toEqual([second, first]);
    const after = await store.signing(names.tenant, created.id, Date.now() + 3601_000);
    expect(after.found && after.value.secrets).toEqual([second]);
  });

  it('opens nothing for an inactive endpoint, and tells another tenant and a missing one apart', async () => {
    const { endpoint: created } = await endpoint();
    await store.disable(names.tenant, created.id, audit);
    const inactive = await store.signing(names.tenant, created.id, Date.now());
    expect(inactive).toEqual({
      found: true,
      value: { endpoint: expect.objectContaining({ id: created.id, active: false }), secrets: null },
    });
    const { endpoint: active } = await endpoint();
    expect(await store.signing('someone-else', active.id, Date.now())).toEqual({
      found: false,
      reason: 'foreign',
    });
    expect(await store.signing('someone-else', created.id, Date.now())).toEqual({
      found: false,
      reason: 'foreign',
    });
    expect(await store.signing(names.tenant, 'wh_ffffffff', Date.now())).toEqual({
      found: false,
      reason: 'missing',
    });
  });
});
