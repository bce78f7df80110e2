// Prints one plain closing line from vitest's JSON report: "N passed, N failed, N skipped".
import { readFileSync } from 'node:fs'

const report = JSON.parse(readFileSync(new URL('../test-results.json', import.meta.url), 'utf8'))
const skipped = report.numPendingTests + report.numTodoTests
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`)
if (report.numTotalTests === 0 || report.numFailedTests > 0) process.exit(1)
