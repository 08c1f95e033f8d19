import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** docs/integrity.md's Python block, written to `dir` as the file the document names, beside nothing else. */
export function writeReferenceModule(dir: string): void {
  const doc = readFileSync(join(ROOT, 'docs/integrity.md'), 'utf8');
  const blocks = [...doc.matchAll(/```python integrity\.py\n([\s\S]*?)```/g)];
  if (blocks.length !== 1) throw new Error('docs/integrity.md must hold one integrity.py block');
  writeFileSync(join(dir, 'integrity.py'), blocks[0]![1]!);
}

/** The Python of a virtualenv with the reference's requirements (made on first use). */
export async function referencePython(): Promise<string> {
  const { stdout } = await run(
    'bash',
    [
      '-c',
      'source scripts/python-venv.sh && ensure_venv .data/venv-integrity test/support/integrity-reference/requirements.txt >&2 && echo "$VENV_BIN"',
    ],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  return `${stdout.trim()}/python`;
}

/** Runs a command with `input` on its stdin; resolves with its stdout once it exits 0. */
export function runWith(command: string, args: string[], input: string): Promise<string> {
  const child = execFile(command, args, { maxBuffer: 64 * 1024 * 1024 });
  child.stdin!.end(input);
  return new Promise<string>((resolve, reject) => {
    let text = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`${command} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}
