import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import type { VerifierCli } from './reference-verifiers.js';
import type { Received } from './webhook-receiver.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** A delivery's Standard Webhooks headers, as JSON: what the Python verifier takes in place of one header. */
export function standardHeaders(delivery: Pick<Received, 'headers'>): string {
  return JSON.stringify(Object.fromEntries(HEADERS.map((h) => [h, String(delivery.headers[h] ?? '')])));
}

/** Whether the official npm `standardwebhooks` package accepts the delivery with the `whsec_` secret. */
export function npmStandardVerified(delivery: Pick<Received, 'headers' | 'body'>, whsec: string): boolean {
  try {
    new Webhook(whsec).verify(delivery.body, JSON.parse(standardHeaders(delivery)) as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

/**
 * The official Python library (PyPI `standardwebhooks`, pinned in standard-webhooks/requirements.txt) as a
 * verifier command, in a virtual environment made once under .data (scripts/python-venv.sh: the machine's
 * Python, or one in a container). Its "header" argument is standardHeaders' JSON; the secret the whsec_ form.
 */
export async function pythonStandardVerifier(): Promise<VerifierCli> {
  const { stdout } = await run(
    'bash',
    [
      '-c',
      'source scripts/python-venv.sh && ensure_venv .data/venv-standardwebhooks test/support/standard-webhooks/requirements.txt >&2 && echo "$VENV_BIN"',
    ],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  return {
    name: 'python standardwebhooks',
    command: `${stdout.trim()}/python`,
    args: [`${ROOT}test/support/standard-webhooks/verify_standard.py`],
  };
}
