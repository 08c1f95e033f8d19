import { createHmac } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseApiKey } from '@audit/shared/api-keys';
import { auditEventCodec, topics, type AuditEventRecord } from '@audit/shared/contract';
import { uniqueNames } from '../support/names.js';
import { freshPostgres } from '../support/postgres.js';
import { opsCli } from '../support/ops-cli.js';
import { cleanUp, testKafka } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const names = uniqueNames('opskeys');
const PEPPER = 'test-pepper-0123456789abcdef0123456789';
const auditTopic = topics(names.topicPrefix, 1).auditEvents.name;
let postgres: Awaited<ReturnType<typeof freshPostgres>>;
const events: AuditEventRecord[] = [];
const consumer = testKafka().consumer({ groupId: `${names.groupId}-reader` });

const run = opsCli(names, () => postgres.url, { API_KEY_PEPPER: PEPPER });
const opsWith = (overrides: Record<string, string | undefined>, ...argv: string[]) => run(argv, overrides);
const ops = (...argv: string[]) => opsWith({}, ...argv);

async function rows() {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  const { rows } = await client.query('SELECT * FROM api_keys ORDER BY created_at');
  await client.end();
  return rows as Record<string, unknown>[];
}

const eventsFor = (prefix: string) => events.filter((e) => e.resource_id === prefix).map((e) => e.action);

beforeAll(async () => {
  postgres = await freshPostgres(names);
  expect((await ops('migrate')).code).toBe(0);
  const codec = auditEventCodec();
  await consumer.connect();
  await consumer.subscribe({ topic: auditTopic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void events.push(codec.decode(message.value!)) });
});

afterAll(async () => {
  await consumer.disconnect();
  await postgres.drop();
  await cleanUp(names);
});

describe('ops keys', () => {
  let first: Record<string, unknown>;

  it('create prints the full key once, stores only its keyed hash, and writes admin.key.create', async () => {
    const res = await ops(
      'keys',
      'create',
      '--tenant',
      names.tenant,
      '--scopes',
      'audit:read,audit:export',
      '--ip-allow',
      '10.0.0.0/8,2001:db8::1',
      '--label',
      'siem',
      '--json',
    );
    expect(res.code).toBe(0);
    first = res.json();
    expect(first).toMatchObject({
      tenant_id: names.tenant,
      scopes: ['audit:read', 'audit:export'],
      ip_allow: ['10.0.0.0/8', '2001:db8::1/128'],
      label: 'siem',
      env: 'live',
    });
    const key = parseApiKey(first.key as string)!;
    expect(key.prefix).toBe(first.prefix);

    const [row] = await rows();
    expect(JSON.stringify(row)).not.toContain(key.secret);
    expect(
      (row!.secret_hash as Buffer).equals(createHmac('sha256', PEPPER).update(key.secret).digest()),
    ).toBe(true);

    await waitFor('admin.key.create event', async () => eventsFor(key.prefix).includes('admin.key.create'));
    const event = events.find((e) => e.resource_id === key.prefix)!;
    expect(event).toMatchObject({
      tenant_id: names.tenant,
      user_id: 'operator:test',
      resource_type: 'api_key',
      phi_involved: false,
      success: true,
    });
    expect(JSON.parse(event.details)).toMatchObject({
      scopes: ['audit:read', 'audit:export'],
      label: 'siem',
    });
  });

  it('list shows keys without any secret material', async () => {
    const res = await ops('keys', 'list', '--tenant', names.tenant, '--json');
    const list = JSON.parse(res.out) as Record<string, unknown>[];
    expect(list.map((k) => k.prefix)).toEqual([first.prefix]);
    expect(list[0]).not.toHaveProperty('key');
    expect(list[0]).not.toHaveProperty('secret_hash');
  });

  it('rotate mints a key with the same tenant, scopes and allow-list; the old one stays live', async () => {
    const res = await ops('keys', 'rotate', '--prefix', first.prefix as string, '--json');
    expect(res.code).toBe(0);
    const rotated = res.json();
    expect(rotated).toMatchObject({
      tenant_id: names.tenant,
      scopes: first.scopes,
      ip_allow: first.ip_allow,
      rotated_from: first.prefix,
    });
    expect(rotated.prefix).not.toBe(first.prefix);
    expect((await rows()).map((r) => r.revoked_at)).toEqual([null, null]);
    await waitFor('event for the new key', async () =>
      eventsFor(rotated.prefix as string).includes('admin.key.create'),
    );
  });

  it('revoke marks the key revoked once and writes admin.key.revoke once', async () => {
    const prefix = first.prefix as string;
    const res = await ops('keys', 'revoke', '--prefix', prefix, '--json');
    expect(res.code).toBe(0);
    expect(res.json()).toMatchObject({ prefix, changed: true });
    const again = await ops('keys', 'revoke', '--prefix', prefix, '--json');
    expect(again.json()).toMatchObject({ prefix, changed: false });
    await waitFor('admin.key.revoke event', async () => eventsFor(prefix).includes('admin.key.revoke'));
    expect(eventsFor(prefix).filter((a) => a === 'admin.key.revoke')).toHaveLength(1);
    expect((await ops('keys', 'rotate', '--prefix', prefix)).code).toBe(1);
  });

  it('refuses bad input with exit 2 and changes nothing', async () => {
    const before = (await rows()).length;
    const eventsBefore = events.length;
    for (const argv of [
      ['keys', 'create', '--tenant', 'bad tenant', '--scopes', 'audit:read'],
      ['keys', 'create', '--tenant', names.tenant, '--scopes', 'admin:all'],
      ['keys', 'create', '--tenant', names.tenant, '--scopes', 'audit:read', '--ip-allow', '300.1.1.1/8'],
      ['keys', 'create', '--tenant', names.tenant, '--scopes', 'audit:read', '--ip-allow', '10.1.2.3/8'],
      ['keys', 'create', '--tenant', names.tenant, '--scopes', 'audit:read', '--ip-allow', 'fe80::1%eth0'],
      ['keys', 'create', '--tenant', names.tenant, '--scopes', 'audit:read', '--bogus'],
      ['keys', 'revoke', '--prefix', "x'; DROP TABLE api_keys; --"],
    ]) {
      const res = await ops(...argv);
      expect(res.code, argv.join(' ')).toBe(2);
      expect(res.err).toMatch(/^error: /);
    }
    expect((await ops('keys', 'revoke', '--prefix', 'ffffffff')).code).toBe(1);
    expect((await rows()).length).toBe(before);
    expect(events.length).toBe(eventsBefore);
  });

  it('needs the pepper for changes only, and rotates only keys of its own environment', async () => {
    const noPepper = await opsWith(
      { API_KEY_PEPPER: undefined },
      'keys',
      'create',
      '--tenant',
      names.tenant,
      '--scopes',
      'audit:read',
    );
    expect(noPepper.code).toBe(2);
    expect(noPepper.err).toMatch(/API_KEY_PEPPER/);
    expect((await opsWith({ API_KEY_PEPPER: undefined }, 'keys', 'list')).code).toBe(0);

    const live = (
      await ops('keys', 'create', '--tenant', names.tenant, '--scopes', 'audit:read', '--json')
    ).json();
    const asTest = await opsWith(
      { API_KEY_ENV: 'test' },
      'keys',
      'rotate',
      '--prefix',
      live.prefix as string,
    );
    expect(asTest.code).toBe(1);
    expect(asTest.err).toMatch(/live key/);
  });
});
