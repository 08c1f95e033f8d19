import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIR = 'test/support/export-readers';

let venvBin: Promise<string> | undefined;

/** The readers' virtual environment (pyarrow), made once per run by scripts/python-venv.sh. */
function readers(): Promise<string> {
  venvBin ??= run(
    'bash',
    [
      '-c',
      `source scripts/python-venv.sh && ensure_venv "$PWD/.data/export-readers-venv" ${DIR}/requirements.txt >&2 && echo "$VENV_BIN"`,
    ],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  ).then((r) => r.stdout.trim());
  return venvBin;
}

/**
 * An export file as third-party readers read it (pyarrow, Python's csv and json modules): its columns with their
 * types, and its rows with the list's field values.
 */
export async function readExport(format: string, file: string) {
  const bin = await readers();
  const { stdout } = await run(`${bin}/python`, [`${DIR}/read_export.py`, format, file], {
    cwd: ROOT,
    maxBuffer: 2 * 1024 * 1024 * 1024,
  });
  const [head, ...rows] = stdout.trimEnd().split('\n');
  return {
    columns: (JSON.parse(head!) as { columns: [string, string, boolean][] | null }).columns,
    rows: rows.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
