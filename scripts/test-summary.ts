// Prints one closing line over every vitest JSON report: `tests: N passed, N failed, N skipped`, after a line per
// failed test (report, file, name and the first line of its error), so that a CI log cut to its last lines still
// says what failed.
// Usage: test-summary.ts <vitest runs that exited non-zero> <report.json>...
// A file that failed before running any test (an import error) counts as one failure; so does a run that failed
// outside any test (an unhandled rejection), which its JSON report does not show.
import { readFileSync } from 'node:fs';
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

const firstLine = (text: string | undefined): string => (text ?? '').split('\n')[0]!.slice(0, 300);

let passed = 0;
let failed = 0;
let skipped = 0;
const lines: string[] = [];
const [failedRuns, ...files] = process.argv.slice(2);
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
if (failed === 0) failed = Number(failedRuns);
for (const line of lines) console.log(line);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
