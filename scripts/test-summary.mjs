// Prints plain closing lines from vitest's JSON report (test-results.json, or the file named as the
// argument): first how many tests of each outside service ran, then "N passed, N failed, N skipped".
//
// A test that needs a service names its variable in its own name or a describe's, as the reason it
// is skipped without it: "(set KEYWARD_PG_URL to run)", "(set KEYWARD_REDIS_URL to run)",
// "(set KEYWARD_MYSQL_URL to run)". Such a
// test is always registered (`describe.skipIf(!PG_URL)(...)`), never left out. With the variable
// set, as in CI, one that was skipped without running fails the run, and so does a main report
// that has none at all. A test that started and then skipped itself (`context.skip`, for an
// optional feature a store lacks) has a duration in the report: it is counted apart.
import { readFileSync } from 'node:fs'

const SERVICES = [
  { name: 'PostgreSQL', variable: 'KEYWARD_PG_URL' },
  { name: 'Redis', variable: 'KEYWARD_REDIS_URL' },
  { name: 'MySQL', variable: 'KEYWARD_MYSQL_URL' },
]

const file = process.argv[2] ?? 'test-results.json'
const report = JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'))
const tests = report.testResults.flatMap((suite) =>
  suite.assertionResults.map((test) => ({
    file: suite.name,
    name: [...test.ancestorTitles, test.title].join(' > '),
    failed: test.status === 'failed',
    message: (test.failureMessages ?? []).join('\n'),
    ran: test.status === 'passed' || test.status === 'failed',
    skippedItself: test.status === 'skipped' && typeof test.duration === 'number',
  })),
)

let failed = report.numTotalTests === 0 || report.numFailedTests > 0
for (const { name, variable } of SERVICES) {
  const marker = `(set ${variable} to run)`
  const marked = tests.filter((test) => test.name.includes(marker))
  const ran = marked.filter((test) => test.ran).length
  const skippedItself = marked.filter((test) => test.skippedItself).length
  const skipped = marked.filter((test) => !test.ran && !test.skippedItself)
  const set = Boolean(process.env[variable])
  if (file !== 'test-results.json' && marked.length === 0) continue
  const itself = skippedItself > 0 ? `, ${skippedItself} skipped itself (an optional feature)` : ''
  console.log(
    `${name} tests: ${ran} ran${itself}, ${skipped.length} skipped (${variable} ${set ? 'set' : 'not set'})`,
  )
  if (!set) continue
  if (skipped.length > 0) {
    console.error(`${variable} is set, yet these ${name} tests were skipped:`)
    for (const test of skipped.slice(0, 20)) console.error(`  ${test.name}`)
    failed = true
  }
  if (file === 'test-results.json' && marked.length === 0) {
    console.error(`${variable} is set, yet no test is marked "${marker}": none of them ran.`)
    failed = true
  }
}

// The failed tests last, with the first lines of their messages: a run's log is often read from
// its end.
const failures = tests.filter((test) => test.failed)
for (const test of failures.slice(0, 20)) {
  console.error(`FAILED ${test.file.replace(/^.*?\/(packages|examples|scripts|bench)\//, '$1/')}`)
  console.error(`  ${test.name}`)
  for (const line of test.message.split('\n').slice(0, 6)) console.error(`    ${line}`)
}
if (failures.length > 20) console.error(`... and ${failures.length - 20} more failed tests`)
// A suite that failed to load has no tests to list: its file is named instead.
for (const suite of report.testResults) {
  if (suite.status === 'failed' && suite.assertionResults.every((test) => test.status !== 'failed')) {
    console.error(`FAILED ${suite.name.replace(/^.*?\/(packages|examples|scripts|bench)\//, '$1/')}`)
    for (const line of (suite.message ?? '').split('\n').slice(0, 6)) console.error(`    ${line}`)
  }
}

const skipped = report.numPendingTests + report.numTodoTests
console.log(
  `${file === 'test-results.json' ? 'tests' : file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
)
if (failed) process.exit(1)
