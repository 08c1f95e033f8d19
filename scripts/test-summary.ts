// Prints one closing line over every vitest JSON report: `tests: N passed, N failed, N skipped`.
// Usage: test-summary.ts <vitest runs that exited non-zero> <report.json>...
// A file that failed before running any test (an import error) counts as one failure; so does a run that failed
// outside any test (an unhandled rejection), which its JSON report does not show.
import { readFileSync } from 'node:fs';

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { status: string; assertionResults: unknown[] }[];
}

let passed = 0;
let failed = 0;
let skipped = 0;
const [failedRuns, ...files] = process.argv.slice(2);
for (const file of files) {
  const report = JSON.parse(readFileSync(file, 'utf8')) as VitestReport;
  passed += report.numPassedTests;
  const failedFiles = report.testResults.filter(
    (r) => r.status === 'failed' && r.assertionResults.length === 0,
  ).length;
  failed += report.numFailedTests + failedFiles;
  skipped += report.numPendingTests + report.numTodoTests;
}
if (failed === 0) failed = Number(failedRuns);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
