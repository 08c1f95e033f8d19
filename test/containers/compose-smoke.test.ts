import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  leafEventOf,
  leafHashOf,
  parseVerifierKey,
  verifyCheckpoint,
  verifyInclusion,
} from '@audit-trail/integrity-verifier';
import { testComposeProject } from '../support/compose.js';
import { apiAt } from '../support/deployment.js';
import { ingest, makeEvent } from '../support/events.js';
import { waitFor } from '../support/wait-for.js';
import { independentlyVerified, webhookReceiver } from '../support/webhook-receiver.js';

// docker-compose.yml brought up whole on this machine (Podman, images built here), used through its published
// ports as a user would, then taken down. The dispatcher reaches this process's receiver through Podman's bridge,
// a private address, which the test's WEBHOOK_ALLOW_TARGET_CIDRS lets through.

const tenant = `tenant-compose-${randomBytes(4).toString('hex')}`;
const compose = await testComposeProject('single');
const receiver = await webhookReceiver(() => 204, { listen: '0.0.0.0', urlHost: 'host.containers.internal' });
const api = apiAt(compose.gateway);
let key = '';
const call = (method: string, path: string, body?: unknown) => api(key, method, path, body);

beforeAll(async () => {
  await compose.up();
  const minted = await compose.ops(
    'keys',
    'create',
    '--tenant',
    tenant,
    '--scopes',
    'audit:read,audit:export,webhooks:write,viewer:issue',
    '--json',
  );
  key = (JSON.parse(minted) as { key: string }).key;
});

afterAll(async () => {
  await receiver.close();
  await compose.down();
});

describe('docker-compose.yml under Podman, with the images built here', () => {
  it('ingests, lists, exports (at once and as a job), serves the viewer and a report, delivers a signed webhook; down leaves nothing behind', async () => {
    const hook = await call('POST', '/audit/webhooks', {
      url: receiver.url('/siem'),
      event_filter: ['phi.'],
    });
    expect(hook.status, hook.text).toBe(201);
    const { secret } = JSON.parse(hook.text) as { secret: string };

    const events = [0, 1, 2].map((i) => ({ ...makeEvent(tenant, i), action: 'phi.read', patient_id: 'p-1' }));
    const ids = events.map((e) => e.event_id);
    expect((await ingest(compose.ingest, compose.ingestToken, events)).status).toBe(202);

    const listed = await waitFor('the events in the list', async () => {
      const res = await call('GET', '/audit/events?action=phi.read');
      const page = JSON.parse(res.text) as { events: { event_id: string }[] };
      return res.status === 200 && page.events.length === ids.length && page.events;
    });
    expect(listed.map((e) => e.event_id).sort()).toEqual([...ids].sort());

    const exported = await call('POST', '/audit/export?format=ndjson', { action: 'phi.read' });
    expect(exported.status).toBe(200);
    const rows = exported.text
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event_id: string }).event_id);
    expect(rows.sort()).toEqual([...ids].sort());

    // An export job: the exporter writes its file to S3Proxy's bucket, and the gateway serves it from there.
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const job = await call('POST', '/audit/exports', { since, action: 'phi.read', format: 'csv' });
    expect(job.status, job.text).toBe(202);
    const { id } = JSON.parse(job.text) as { id: string };
    const done = await waitFor('the export job to end', async () => {
      const view = JSON.parse((await call('GET', `/audit/exports/${id}`)).text) as { status: string };
      return view.status !== 'queued' && view.status !== 'running' && view;
    });
    expect(done).toMatchObject({ status: 'succeeded', manifest: { row_count: ids.length } });
    const file = await fetch(`${compose.gateway}/api/v2/public/audit/exports/${id}/download`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(file.status).toBe(200);
    const records = parse(gunzipSync(Buffer.from(await file.arrayBuffer())), { columns: true }) as {
      event_id: string;
    }[];
    expect(records.map((r) => r.event_id).sort()).toEqual([...ids].sort());

    // The migrate job made the signing key into the notary's volume: the trail's checkpoint verifies with the
    // published key, and proves an event as the API returns it.
    const keys = JSON.parse((await call('GET', '/audit/integrity/keys')).text) as {
      keys: { verifier_key: string }[];
    };
    const checkpoint = await waitFor('a checkpoint of the whole trail', async () => {
      const res = JSON.parse((await call('GET', '/audit/integrity/checkpoints?limit=1')).text) as {
        checkpoints: { tree_size: number; note: string }[];
      };
      // The key's own admin.key.create, the events, the webhook's creation, the exports' audit events.
      return (res.checkpoints[0]?.tree_size ?? 0) >= ids.length + 2 && res.checkpoints[0];
    });
    const verified = verifyCheckpoint(
      checkpoint.note,
      keys.keys.map((k) => parseVerifierKey(k.verifier_key)!),
    );
    expect(verified.ok).toBe(true);
    const proof = JSON.parse(
      (
        await call(
          'GET',
          `/audit/integrity/proofs/inclusion?event_id=${ids[0]}&tree_size=${checkpoint.tree_size}`,
        )
      ).text,
    ) as { leaf_index: number; hashes: string[] };
    const event = JSON.parse((await call('GET', `/audit/events/${ids[0]}`)).text) as Record<string, unknown>;
    expect(
      verified.ok &&
        verifyInclusion(
          leafHashOf(leafEventOf(event)),
          proof.leaf_index,
          checkpoint.tree_size,
          proof.hashes.map((h) => new Uint8Array(Buffer.from(h, 'base64'))),
          verified.checkpoint.root,
        ),
    ).toBe(true);

    // The image carries the viewer's build: a token's page and its script, as a browser would load them.
    const viewer = await call('POST', '/audit/viewer-tokens', {});
    expect(viewer.status, viewer.text).toBe(201);
    const { id: tokenId } = JSON.parse(viewer.text) as { id: string };
    const page = await fetch(`${compose.gateway}/viewer/t/${tokenId}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = /\/viewer\/assets\/viewer-[A-Z0-9]+\.js/.exec(await page.text())?.[0];
    expect((await fetch(`${compose.gateway}${script}`)).status).toBe(200);

    // The image renders a patient access report's PDF with the fonts it ships: not the machine's.
    const pdf = await fetch(
      `${compose.gateway}/api/v2/public/audit/reports/patient-access?patient_id=p-1&format=pdf`,
      {
        headers: { authorization: `Bearer ${key}` },
      },
    );
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    await waitFor('a delivery per event', async () => receiver.at('/siem').length >= ids.length);
    const delivered = receiver.at('/siem');
    expect(delivered.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const r of delivered) expect(independentlyVerified(r, secret)).toBe(true);

    await compose.down();
    expect(await compose.leftovers()).toEqual([]);
  });
});
