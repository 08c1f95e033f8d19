import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVerifier } from '../../../test/support/reference-verifiers.js';
import { installVerifier, packVerifier, typecheckConsumer } from '../../../test/support/verifier-package.js';
import { signWebhook } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'webhook-verifier-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A receiver's TypeScript, with no Node types: the package's declarations must stand on their own.
const CONSUMER = `import {
  DEFAULT_TOLERANCE_S,
  SIGNATURE_HEADER,
  signWebhook,
  verifyWebhookSignature,
  type VerifyOptions,
} from '@audit-trail/webhook-verifier';

const options: VerifyOptions = { toleranceS: DEFAULT_TOLERANCE_S, now: () => 0 };
const header: string = signWebhook(new Uint8Array([123, 125]), 'secret', 0);
export const ok: boolean = verifyWebhookSignature('{}', [header], 'secret', options);
export const name: 'x-service-signature' = SIGNATURE_HEADER;
// @ts-expect-error a parsed body cannot be verified
verifyWebhookSignature({}, header, 'secret');
`;

describe('the published package', () => {
  let packed: Awaited<ReturnType<typeof packVerifier>>;
  beforeAll(async () => {
    packed = await packVerifier(dir);
  });

  it('holds the built module, its types, the README, the license and package.json, nothing else', () => {
    expect(packed.files).toEqual([
      'LICENSE',
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'package.json',
    ]);
  });

  it('installs from its tarball into an empty project, where its types resolve and it verifies', async () => {
    const { project, cli } = await installVerifier(dir, packed.tarball);
    await typecheckConsumer(project, CONSUMER);

    const secret = 'ab'.repeat(32);
    const body = join(dir, 'body.json');
    writeFileSync(body, '{"id":"e1","type":"phi.read"}');
    const header = signWebhook(readFileSync(body), secret, Math.floor(Date.now() / 1000));
    expect(await runVerifier(cli, body, header, secret)).toBe(true);
    expect(await runVerifier(cli, body, `${header},x=a=b`, secret)).toBe(true);
    expect(await runVerifier(cli, body, header, 'cd'.repeat(32))).toBe(false);
  });
});
