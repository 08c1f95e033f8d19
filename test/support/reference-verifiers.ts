import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A verifier run as a command: `<command> <args…> <body file> <header>`, the secret in WEBHOOK_SECRET. */
export interface VerifierCli {
  name: string;
  command: string;
  args: string[];
}

/**
 * What the verifier answers: true for "valid" with exit 0, false for "invalid" with exit 1. Anything else (a
 * crash, a traceback) throws, so that a verifier that fails is never mistaken for one that refuses.
 */
export async function runVerifier(
  cli: VerifierCli,
  bodyFile: string,
  header: string,
  secret: string,
): Promise<boolean> {
  const env = { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret };
  let said: { stdout: string; stderr: string };
  try {
    said = await run(cli.command, [...cli.args, bodyFile, header], { env });
  } catch (err) {
    const { code, stdout } = err as { code?: unknown; stdout?: string };
    if (code === 1 && stdout?.trim() === 'invalid') return false;
    throw err;
  }
  if (said.stdout.trim() === 'valid') return true;
  throw new Error(`${cli.name} exited 0 without saying "valid": ${JSON.stringify(said)}`);
}

/**
 * The reference verifiers of docs/webhooks.md, taken from the fenced blocks whose info string names the file
 * (```python verify.py, ```go verify.go), so the code tested is the code the document shows.
 */
export function docsVerifierSources(): Map<string, string> {
  const doc = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8');
  const blocks = [...doc.matchAll(/^```\w+ (verify\.(?:py|go))\n([\s\S]*?)^```$/gm)];
  const sources = new Map(blocks.map((m) => [m[1]!, m[2]!]));
  if (blocks.length !== 2 || sources.size !== 2) {
    throw new Error('docs/webhooks.md must hold one verify.py and one verify.go block');
  }
  return sources;
}

/**
 * The Python and Go verifiers written to `dir`, the Go one built there. Go comes from scripts/ensure-go.sh; it
 * keeps its caches under .data/go and may not download anything (no toolchain switch, no module proxy): the
 * verifier uses the standard library only.
 */
export async function docsVerifiers(dir: string): Promise<VerifierCli[]> {
  for (const [file, source] of docsVerifierSources()) writeFileSync(join(dir, file), source);
  const go = (await run('bash', [join(ROOT, 'scripts/ensure-go.sh')])).stdout.trim();
  await run(go, ['build', '-o', join(dir, 'verify-go'), join(dir, 'verify.go')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      GOCACHE: join(ROOT, '.data/go/cache'),
      GOPATH: join(ROOT, '.data/go/path'),
      GOTOOLCHAIN: 'local',
      GOPROXY: 'off',
      GOFLAGS: '',
      GOWORK: 'off',
    },
  });
  return [
    { name: 'python', command: 'python3', args: [join(dir, 'verify.py')] },
    { name: 'go', command: join(dir, 'verify-go'), args: [] },
  ];
}
