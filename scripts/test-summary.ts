// Prints one closing line over every vitest JSON report: `tests: N passed, N failed, N skipped`, after a line per
// failed test (report, file, name and the first line of its error) and, for each tier that exited non-zero, what its
// log says of why, so that a CI log cut to its last lines still says what failed.
// Usage: test-summary.ts <failed-tiers.tsv: name, exit status, log> <report.json>...
// A file that failed before running any test (an import error) counts as one failure; so does a tier that failed
// outside any test (an unhandled rejection, a step that is not vitest), which no JSON report shows.
import { existsSync, readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';

interface AssertionResult {
  fullName: string;
  status: string;
  failureMessages?: string[];
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { name: string; status: string; message?: string; assertionResults: AssertionResult[] }[];
}

// eslint-disable-next-line no-control-regex -- the colours vitest writes are what is removed
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

/** A failed tier's log, cut to why: vitest's unhandled errors, else the lines that speak of errors, else its end. */
function whyFailed(log: string): string[] {
  const all = plain(log)
    .split('\n')
    .filter((line) => line.trim() !== '');
  const unhandled = all.findIndex((line) => /Unhandled (Error|Rejection)/.test(line));
  const errors = all.filter(
    (line) => /\b(FAIL|Error|ERR!|error|failed)\b/.test(line) && !/\b0 failed\b/.test(line),
  );
  const why =
    unhandled >= 0
      ? all.slice(unhandled, unhandled + 30)
      : errors.length > 0
        ? errors.slice(-15)
        : all.slice(-12);
  return why.map((line) => `  ${line.slice(0, 300)}`);
}

const firstLine = (text: string | undefined): string => (text ?? '').split('\n')[0]!.slice(0, 300);

let passed = 0;
let failed = 0;
let skipped = 0;
const lines: string[] = [];
const [failedTiersFile, ...files] = process.argv.slice(2);
for (const file of files) {
  const report = JSON.parse(readFileSync(file, 'utf8')) as VitestReport;
  passed += report.numPassedTests;
  for (const result of report.testResults) {
    const where = `${basename(file, '.json')}: ${relative(process.cwd(), result.name)}`;
    if (result.status === 'failed' && result.assertionResults.length === 0) {
      failed += 1;
      lines.push(`failed ${where}: ${firstLine(result.message)}`);
    }
    for (const test of result.assertionResults.filter((t) => t.status === 'failed')) {
      lines.push(`failed ${where} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    }
  }
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}
const failedTiers = existsSync(failedTiersFile!)
  ? readFileSync(failedTiersFile!, 'utf8').trim().split('\n')
  : [];
for (const tier of failedTiers) {
  const [name, status, log] = tier.split('\t') as [string, string, string];
  const why = existsSync(log) ? whyFailed(readFileSync(log, 'utf8')) : ['  (no log)'];
  lines.push(`failed tier "${name}" (exit ${status}); from ${log}:`, ...why);
}
if (failed === 0) failed = failedTiers.length;
for (const line of lines) console.log(line);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
