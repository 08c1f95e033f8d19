import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '@audit/shared/webhooks';
import { dispatcherFixture } from '../support/dispatcher-fixture.js';
import { ingest, makeEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { docsVerifiers, runVerifier, type VerifierCli } from '../support/reference-verifiers.js';
import { LOOPBACK_TARGETS } from '../support/stack.js';
import {
  npmStandardVerified,
  pythonStandardVerifier,
  standardHeaders,
} from '../support/standard-webhooks.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';
import { installVerifier, packVerifier } from '../support/verifier-package.js';

const { names, ingest: ingestProc } = pipelineFixture('whver');
const gw = gatewayFixture(names, { env: LOOPBACK_TARGETS });
dispatcherFixture(names, gw, {});
const receiver = await webhookReceiver(() => 204);
const dir = mkdtempSync(join(tmpdir(), 'webhook-verifiers-'));
afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

// Built before the delivery arrives, so that its signature is fresh when they check it. Installing Go, if the
// machine lacks it, may take a while.
let verifiers: VerifierCli[] = [];
let pythonStandard: VerifierCli;
beforeAll(async () => {
  const { tarball } = await packVerifier(dir);
  verifiers = [...(await docsVerifiers(dir)), (await installVerifier(dir, tarball)).cli];
  pythonStandard = await pythonStandardVerifier();
}, 600_000);

describe('webhook verifiers for receivers', () => {
  it('the Python and Go verifiers of docs/webhooks.md, the published package and the official Standard Webhooks libraries accept a real delivery, and refuse it altered', async () => {
    const tenant = `${names.tenant}-verifiers`;
    const key = await gw.mint(tenant, 'audit:read,webhooks:write');
    const created = await gw.send('POST', '/audit/webhooks', key, { url: receiver.url('/siem') });
    expect(created.status, created.text).toBe(201);
    const { secret, standard_webhooks_secret: whsec } = JSON.parse(created.text) as {
      secret: string;
      standard_webhooks_secret: string;
    };
    // Text beyond ASCII and JSON escapes in the body: the verifiers must sign its bytes, not a decoding of them.
    const event = { ...makeEvent(tenant, 0), details: { note: 'é 🧾 "quoted" \\ line\nbreak' } };
    expect((await ingest(ingestProc.url, names.ingestToken, [event])).status).toBe(202);
    const delivery = await waitFor('the delivery', async () =>
      receiver.at('/siem').find((r) => r.id === event.event_id),
    );

    const header = String(delivery.headers['x-service-signature']);
    const [tPart, ...signatures] = header.split(',');
    const body = join(dir, 'body.json');
    writeFileSync(body, delivery.body);
    const altered = join(dir, 'altered.json');
    writeFileSync(
      altered,
      delivery.body.toString('utf8').replace(`"tenant_id":"${tenant}"`, '"tenant_id":"x"'),
    );
    const nowS = Math.floor(Date.now() / 1000);
    const cases: [string, string, string, string, boolean][] = [
      ['the delivery as received', body, header, secret, true],
      [
        'unknown parts, one with a second "="',
        body,
        `${header},v2=${'ab'.repeat(32)},x=a=b,flag`,
        secret,
        true,
      ],
      [
        'a wrong v1 before the right one',
        body,
        `${tPart},v1=${'0'.repeat(64)},${signatures.join(',')}`,
        secret,
        true,
      ],
      ['another tenant_id in the body', altered, header, secret, false],
      ['another secret', body, header, 'cd'.repeat(32), false],
      ['a second t', body, `${header},${tPart}`, secret, false],
      ['no t', body, signatures.join(','), secret, false],
      ['signed an hour ago', body, signWebhook(delivery.body, secret, nowS - 3600), secret, false],
      ['signed an hour ahead', body, signWebhook(delivery.body, secret, nowS + 3600), secret, false],
    ];
    for (const cli of verifiers) {
      for (const [what, file, h, s, expected] of cases) {
        expect(await runVerifier(cli, file, h, s), `${cli.name}: ${what}`).toBe(expected);
      }
    }
    expect(verifiers.map((v) => v.name)).toEqual(['python', 'go', 'node package']);

    // The same delivery through the official Standard Webhooks libraries, npm's and PyPI's, with the whsec_ form
    // of the same secret (docs/webhooks.md "Signature").
    const standard = standardHeaders(delivery);
    const otherWhsec = `whsec_${Buffer.from('cd'.repeat(32)).toString('base64')}`;
    const alteredDelivery = { ...delivery, body: readFileSync(altered) };
    expect(npmStandardVerified(delivery, whsec), 'npm: the delivery').toBe(true);
    expect(npmStandardVerified(alteredDelivery, whsec), 'npm: altered').toBe(false);
    expect(npmStandardVerified(delivery, otherWhsec), 'npm: another secret').toBe(false);
    expect(await runVerifier(pythonStandard, body, standard, whsec), 'PyPI: the delivery').toBe(true);
    expect(await runVerifier(pythonStandard, altered, standard, whsec), 'PyPI: altered').toBe(false);
    expect(await runVerifier(pythonStandard, body, standard, otherWhsec), 'PyPI: another secret').toBe(false);
    expect(delivery.headers['webhook-id']).toBe(event.event_id);
    expect(delivery.headers['webhook-timestamp']).toBe(tPart!.slice(2));
  });
});
