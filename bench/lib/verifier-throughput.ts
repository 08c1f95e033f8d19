// bench:integrity's verifier part: the offline check of an export (trailCheck on parsed rows, and the command on
// the files), each beside the floors of the work it cannot avoid. Each measure runs in a fresh process of its own
// (verifier-child.ts), one after the other, so that none carries another's heap or competes with it.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { MEASURES, type Measure } from './verifier-child.js';
import type { VerifierDataset } from './verifier-dataset.js';

const CHILD = fileURLToPath(new URL('./verifier-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

export type VerifierRound = Record<Measure, number>;

/** Seconds of each measure's timed work over the dataset's rows. */
export async function verifierRound(d: VerifierDataset): Promise<VerifierRound> {
  const round = {} as VerifierRound;
  const input = JSON.stringify({ files: d.files, origin: d.origin, rows: d.rows });
  for (const measure of MEASURES) {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD, measure, input], {
      cwd: ROOT,
      maxBuffer: 1 << 20,
    });
    round[measure] = (JSON.parse(stdout.trim().split('\n').at(-1)!) as { seconds: number }).seconds;
  }
  return round;
}
