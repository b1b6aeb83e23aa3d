// Appends each jest run's totals to $GITHOST_TEST_SUMMARY (one JSON line per workspace) so
// .ci/run can print one closing "N passed, N failed" line for the whole monorepo.
const { appendFileSync } = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.GITHOST_TEST_SUMMARY;
    if (!file) return;
    appendFileSync(file, JSON.stringify({
      cwd: process.cwd(),
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
    }) + '\n');
  }
}
module.exports = SummaryReporter;
