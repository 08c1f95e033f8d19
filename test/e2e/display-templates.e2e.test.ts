import { describe, expect, it } from 'vitest';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { waitFor } from '../support/wait-for.js';

// Display templates through the API (docs/viewer.md "Display templates"): validated, versioned, audited.
const { names } = pipelineFixture('disptpl');
// The limit test writes more than a key's default bucket holds.
const gw = gatewayFixture(names, { env: { RATE_LIMIT_WRITE_PER_MIN: '5000' } });

const put = (key: string, selector: string, body: unknown) =>
  gw.send('PUT', `/audit/display-templates/${selector}`, key, body);

describe('display templates', () => {
  it('are set, listed parsed, versioned and removed, each change in the trail', async () => {
    const admin = await gw.mint(names.tenant, 'audit:read,templates:write');
    const first = await put(admin, 'phi.read', { template: '{user_id} read {fields_accessed}' });
    expect(first.status, first.text).toBe(200);
    expect(JSON.parse(first.text)).toMatchObject({
      selector: 'phi.read',
      action: 'phi.read',
      version: 1,
      parts: [{ field: 'user_id' }, { text: ' read ' }, { field: 'fields_accessed' }],
    });
    const second = await put(admin, 'phi.read', {
      template: '{user_id} read {fields_accessed} of {resource_id}',
    });
    expect(JSON.parse(second.text)).toMatchObject({ version: 2 });
    expect((await put(admin, 'phi.*', { template: '{user_id}: {action}' })).status).toBe(200);
    expect((await put(admin, '*', { template: '{action} by {user_id}' })).status).toBe(200);

    const listed = JSON.parse((await gw.get('/audit/display-templates', admin)).text) as {
      templates: { selector: string; action?: string; action_prefix?: string; version: number }[];
    };
    expect(
      listed.templates.map((t) => [t.selector, t.action ?? null, t.action_prefix ?? null, t.version]),
    ).toEqual([
      ['*', null, '', 1],
      ['phi.*', null, 'phi.', 1],
      ['phi.read', 'phi.read', null, 2],
    ]);

    expect((await gw.send('DELETE', '/audit/display-templates/phi.read', admin)).status).toBe(204);
    expect((await gw.send('DELETE', '/audit/display-templates/phi.read', admin)).status).toBe(404);
    const versions = JSON.parse((await gw.get('/audit/display-templates/phi.read/versions', admin)).text) as {
      versions: { version: number; template: string | null; changed_by: string }[];
    };
    expect(versions.versions.map((v) => [v.version, v.template])).toEqual([
      [3, null],
      [2, '{user_id} read {fields_accessed} of {resource_id}'],
      [1, '{user_id} read {fields_accessed}'],
    ]);
    expect(versions.versions[0]!.changed_by).toBe(`api_key:${admin.split('_')[2]}`);
    expect(
      JSON.parse((await gw.get('/audit/display-templates', admin)).text).templates.map(
        (t: { selector: string }) => t.selector,
      ),
    ).toEqual(['*', 'phi.*']);

    const audited = await waitFor('the changes in the trail', async () => {
      const res = await gw.get(
        '/audit/events?action_prefix=admin.display_template.&resource_id=phi.read',
        admin,
      );
      const events = (JSON.parse(res.text) as { events: { action: string; details: string }[] }).events;
      return events.length === 3 ? events : undefined;
    });
    expect(audited.map((e) => [e.action, JSON.parse(e.details)])).toEqual([
      ['admin.display_template.delete', { version: 3 }],
      [
        'admin.display_template.update',
        { version: 2, template: '{user_id} read {fields_accessed} of {resource_id}' },
      ],
      ['admin.display_template.update', { version: 1, template: '{user_id} read {fields_accessed}' }],
    ]);
  });

  it('refuse a bad template or selector by name, and change nothing', async () => {
    const tenant = `${names.tenant}-bad`;
    const admin = await gw.mint(tenant, 'audit:read,templates:write');
    const cases: [string, unknown, string][] = [
      ['phi.read', { template: '{password}' }, 'template'],
      ['phi.read', { template: 'a } b' }, 'template'],
      ['phi.read', { template: '' }, 'template'],
      ['phi.read', { template: 'x\ny' }, 'template'],
      ['phi.read', { template: 7 }, 'template'],
      ['phi.read', { template: 'ok', extra: 1 }, 'extra'],
      ['PHI', { template: 'ok' }, 'selector'],
      ['phi.**', { template: 'ok' }, 'selector'],
    ];
    for (const [selector, body, field] of cases) {
      const res = await put(admin, selector, body);
      expect(res.status, `${selector} ${JSON.stringify(body)}: ${res.text}`).toBe(422);
      expect(JSON.parse(res.text).details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await put(admin, 'phi.read', '{"template":')).status).toBe(400);
    expect(JSON.parse((await gw.get('/audit/display-templates', admin)).text)).toEqual({ templates: [] });
    expect((await gw.get('/audit/display-templates/phi.read/versions', admin)).status).toBe(404);
  });

  it('are written only with templates:write, read by viewer tokens, numbered exactly under concurrent writes', async () => {
    const tenant = `${names.tenant}-conc`;
    const reader = await gw.mint(tenant, 'audit:read,viewer:issue');
    const admin = await gw.mint(tenant, 'audit:read,templates:write');
    expect((await put(reader, 'phi.read', { template: '{user_id}' })).status).toBe(403);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => put(admin, 'phi.read', { template: `{user_id} #${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(results.map((r) => JSON.parse(r.text).version).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    const made = await gw.send('POST', '/audit/viewer-tokens', reader, { narrowed_to: { user_id: 'u-1' } });
    const { token } = JSON.parse(made.text) as { token: string };
    const seen = JSON.parse((await gw.get('/audit/display-templates', token)).text) as {
      templates: { version: number }[];
    };
    expect(seen.templates).toMatchObject([{ version: 8 }]);
    expect((await put(token, 'phi.read', { template: '{user_id}' })).status).toBe(403);
  });

  it('are at most 200 a tenant', async () => {
    const tenant = `${names.tenant}-many`;
    const admin = await gw.mint(tenant, 'audit:read,templates:write');
    for (let i = 0; i < 200; i++) {
      const res = await put(admin, `t${i}.read`, { template: '{user_id}' });
      expect(res.status, res.text).toBe(200);
    }
    const over = await put(admin, 'one.more', { template: '{user_id}' });
    expect(over.status).toBe(409);
    expect(JSON.parse(over.text).error).toBe('limit_reached');
    expect((await put(admin, 't7.read', { template: 'changed {user_id}' })).status).toBe(200);
  });
});
