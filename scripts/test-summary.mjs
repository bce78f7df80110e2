// Prints one plain closing line from vitest's JSON report: "N passed, N failed, N skipped".
// The report is test-results.json, or the file named as the argument.
import { readFileSync } from 'node:fs'

const file = process.argv[2] ?? 'test-results.json'
const report = JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'))
const skipped = report.numPendingTests + report.numTodoTests
console.log(
  `${file === 'test-results.json' ? 'tests' : file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
)
if (report.numTotalTests === 0 || report.numFailedTests > 0) process.exit(1)
