import { beforeAll, describe, expect, it } from 'vitest';
import {
  encodeLeaf,
  leafEventOf,
  leafHashOf,
  parseVerifierKey,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
  type Checkpoint,
} from '@audit-trail/integrity-verifier';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { notaryFixture, TEST_LOG_NAME } from '../support/notary-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { waitFor } from '../support/wait-for.js';

// Ingest, projector (appending the trees), gateway and notary as processes; the signing key made by the operator CLI into a directory
// of the test's; every answer checked by the publishable verifier alone.
const { names, ingest: ingestProc, databaseUrl } = pipelineFixture('integ', {}, { trees: true });
const gw = gatewayFixture(names, { databaseUrl });
notaryFixture(names, () => gw.databaseUrl());
const tenant = names.tenant;
const other = `${names.tenant}-other`;
let key = '';
let otherKey = '';

beforeAll(async () => {
  key = await gw.mint(tenant, 'audit:read');
  otherKey = await gw.mint(other, 'audit:read');
});

const b64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

async function call<T>(path: string, as = key): Promise<{ status: number; body: T }> {
  const res = await gw.get(path, as);
  return { status: res.status, body: JSON.parse(res.text) as T };
}

interface CheckpointView {
  tree_size: number;
  root_hash: string;
  note: string;
  key_name: string;
}

/** The tenant's keys as the API publishes them, parsed as a verifier is given them. */
async function verifierKeys() {
  const { body } = await call<{ keys: { verifier_key: string }[] }>('/audit/integrity/keys');
  return body.keys.map((k) => parseVerifierKey(k.verifier_key)!);
}

/** The latest checkpoint once it covers `size` leaves, verified. */
async function checkpointOf(size: number): Promise<Checkpoint & { view: CheckpointView }> {
  const view = await waitFor(`a checkpoint of ${size} leaves`, async () => {
    const { body } = await call<{ checkpoints: CheckpointView[] }>('/audit/integrity/checkpoints?limit=1');
    return body.checkpoints[0]?.tree_size === size && body.checkpoints[0];
  });
  const verified = verifyCheckpoint(view.note, await verifierKeys());
  if (!verified.ok) throw new Error(`checkpoint does not verify: ${verified.reason}`);
  expect(Buffer.from(verified.checkpoint.root).toString('base64')).toBe(view.root_hash);
  return { ...verified.checkpoint, view };
}

// Minting the tenant's API key wrote admin.key.create into its trail: the first leaf of its tree.
const MINTED = 1;
const FIRST = MINTED + 5;
const BOTH = FIRST + 4;

describe('the integrity API', () => {
  const first = Array.from({ length: 5 }, (_, i) => makeEvent(tenant, i));
  const second = Array.from({ length: 4 }, (_, i) => makeEvent(tenant, 5 + i));

  it('proves every event of the trail in a signed checkpoint, from what the API returns for it', async () => {
    expect((await ingest(ingestProc.url, names.ingestToken, first)).status).toBe(202);
    const checkpoint = await checkpointOf(FIRST);
    expect(checkpoint.origin).toBe(`${TEST_LOG_NAME}/tenants/${tenant}`);
    for (const event of first) {
      const looked = await waitFor('the event readable', async () => {
        const res = await gw.get(`/audit/events/${event.event_id}`, key);
        return res.status === 200 && (JSON.parse(res.text) as Record<string, unknown>);
      });
      const { status, body } = await call<{
        leaf_index: number;
        leaf_hash: string;
        hashes: string[];
        tree_size: number;
      }>(`/audit/integrity/proofs/inclusion?event_id=${event.event_id.toUpperCase()}`);
      expect(status).toBe(200);
      const leaf = leafHashOf(leafEventOf(looked));
      expect(Buffer.from(leaf).toString('base64')).toBe(body.leaf_hash);
      // Ingested with salts: its leaf commits to its personal fields through them (docs/integrity.md "Version 3").
      expect(encodeLeaf(leafEventOf(looked))[0]).toBe(3);
      expect(body.tree_size).toBe(FIRST);
      expect(verifyInclusion(leaf, body.leaf_index, FIRST, body.hashes.map(b64), checkpoint.root)).toBe(true);
    }
  });

  it('proves a later checkpoint consistent with an earlier one, and pages the checkpoints', async () => {
    const before = await checkpointOf(FIRST);
    expect((await ingest(ingestProc.url, names.ingestToken, second)).status).toBe(202);
    const after = await checkpointOf(BOTH);
    const { status, body } = await call<{ hashes: string[] }>(
      `/audit/integrity/proofs/consistency?from=${FIRST}&to=${BOTH}`,
    );
    expect(status).toBe(200);
    expect(verifyConsistency(FIRST, BOTH, body.hashes.map(b64), before.root, after.root)).toBe(true);
    // An event of the first batch, proven in the earlier checkpoint by name.
    const old = await call<{ tree_size: number; checkpoint: CheckpointView }>(
      `/audit/integrity/proofs/inclusion?event_id=${first[2]!.event_id}&tree_size=${FIRST}`,
    );
    expect(old.body).toMatchObject({ tree_size: FIRST, checkpoint: { tree_size: FIRST } });

    const page1 = await call<{ checkpoints: CheckpointView[]; page: { next_cursor: string } }>(
      '/audit/integrity/checkpoints?limit=1',
    );
    expect(page1.body.checkpoints.map((c) => c.tree_size)).toEqual([BOTH]);
    const page2 = await call<{ checkpoints: CheckpointView[]; page: { has_more: boolean } }>(
      `/audit/integrity/checkpoints?limit=1&cursor=${encodeURIComponent(page1.body.page.next_cursor)}`,
    );
    expect(page2.body.checkpoints.map((c) => c.tree_size)[0]).toBeLessThan(BOTH);
  });

  it("answers another tenant's ids and sizes as ids and sizes that do not exist, and refuses its cursor", async () => {
    const id = first[0]!.event_id;
    const theirs = await gw.get(`/audit/integrity/proofs/inclusion?event_id=${id}`, otherKey);
    const unknown = await gw.get(`/audit/integrity/proofs/inclusion?event_id=${id.slice(0, -4)}ffff`, key);
    const notUuid = await gw.get('/audit/integrity/proofs/inclusion?event_id=nope', key);
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
    expect(notUuid.text).toBe(unknown.text);
    expect((await gw.get(`/audit/integrity/proofs/inclusion?event_id=${id}`)).status).toBe(401);
    expect(
      (await gw.get(`/audit/integrity/proofs/consistency?from=${FIRST}&to=${BOTH}`, otherKey)).status,
    ).toBe(404);
    const { body } = await call<{ page: { next_cursor: string } }>('/audit/integrity/checkpoints?limit=1');
    const foreign = await gw.get(
      `/audit/integrity/checkpoints?cursor=${encodeURIComponent(body.page.next_cursor)}`,
      otherKey,
    );
    expect(foreign.status).toBe(422);
  });

  it('refuses bad queries with 422, naming each parameter, and a checkpoint it has not with 404', async () => {
    for (const [query, field] of [
      ['checkpoints?limit=0', 'limit'],
      ['checkpoints?extra=1', 'extra'],
      ['proofs/inclusion?tree_size=1', 'event_id'],
      ['proofs/inclusion?event_id=x&tree_size=-1', 'tree_size'],
      ['proofs/consistency?from=9&to=5', 'from'],
      ['proofs/consistency?from=5', 'to'],
      ['proofs/consistency?from=1&to=99999999999999999', 'to'],
      ['keys?x=1', 'x'],
    ]) {
      const res = await call<{ error: string; details: { field: string }[] }>(`/audit/integrity/${query}`);
      expect(res.status, query).toBe(422);
      expect(
        res.body.details.map((d) => d.field),
        query,
      ).toContain(field);
    }
    const missing = await call<{ message: string }>(
      `/audit/integrity/proofs/consistency?from=${BOTH + 1}&to=${BOTH + 2}`,
    );
    expect(missing).toEqual({
      status: 404,
      body: { error: 'not_found', message: `The tenant has no checkpoint of size ${BOTH + 1}.` },
    });
  });
});
