import { createReadStream } from 'node:fs'
import { readFile, rename, stat, writeFile } from 'node:fs/promises'
import { extname } from 'node:path'
import { IMPORT_HASH_FORMATS, type ImportHashFormat, type ImportProblem } from '@keyward/core'
import { type Command, idArgument, stringOption } from '../command.js'
import { EXIT, usageError } from '../exit.js'
import { betterAuthRecords } from '../import/better-auth.js'
import { fileRecords, type ImportFileFormat } from '../import/files.js'
import { printable } from '../output.js'

/** A bad record as one line: its number, the field, why. Never the record's hash. */
export const problemLine = (problem: ImportProblem) =>
  `record ${problem.record}: ${problem.loc.length ? problem.loc.join('.') : '(record)'}: ${printable(problem.msg)} [${problem.type}]`

function batchOption(text: string | undefined): number {
  if (text === undefined) return 500
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 10_000) {
    throw usageError('--batch must be a whole number from 1 to 10000.')
  }
  return Number(text)
}

async function readCursor(path: string | undefined): Promise<number> {
  if (path === undefined) return 0
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '0'
    throw usageError(`--cursor-file cannot be read: ${error.message}`)
  })
  if (!/^\d{1,15}\s*$/.test(text)) throw usageError('--cursor-file must hold a whole number of records done.')
  return Number(text)
}

// Written whole or not at all: a process killed while writing it leaves the previous cursor.
async function saveCursor(path: string, cursor: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`
  await writeFile(temporary, `${cursor}\n`)
  await rename(temporary, path)
}

function formatOf(file: string, given: string | undefined): ImportFileFormat {
  if (given === 'ndjson' || given === 'csv') return given
  const extension = extname(file).toLowerCase()
  if (extension === '.csv') return 'csv'
  if (extension === '.ndjson' || extension === '.jsonl') return 'ndjson'
  throw usageError(
    `Cannot tell the format of ${printable(file)} by its extension: give --format ndjson or csv.`,
  )
}

// The records the options name: a file's, or better-auth's table's.
function sourceOf(values: Parameters<Command['run']>[0]['values']) {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined)
  const file = text('file')
  const from = text('from')
  if ((file === undefined) === (from === undefined)) {
    throw usageError('Give one of --file PATH or --from better-auth.')
  }
  if (file !== undefined) {
    const format = formatOf(file, text('format'))
    return fileRecords(format, createReadStream(file))
  }
  const url = text('source-url')
  const project = text('project')
  if (url === undefined || project === undefined) {
    throw usageError('--from better-auth needs --source-url URL (its PostgreSQL database) and --project ID.')
  }
  return betterAuthRecords({
    connectionString: url,
    projectId: idArgument(project, '--project'),
    ...(text('source-schema') ? { schema: text('source-schema')! } : {}),
    ...(text('source-table') ? { table: text('source-table')! } : {}),
  })
}

/** `keyward import`: keys of another system, by their SHA-256, from a file or better-auth's database. */
export const importCommand: Command = {
  name: 'import',
  summary: 'Import keys another system issued, by their SHA-256, from a file or better-auth',
  description:
    'Imports keys that another system issued, by their SHA-256, with their owner, credits, expiry, state, ' +
    'permissions and metadata: from --file (NDJSON, one record a line, or CSV with a header row; by the ' +
    "extension or --format), or with --from better-auth straight from better-auth's PostgreSQL database " +
    '(--source-url; its apikey table; its users become identities of --project). Records are written in ' +
    'batches of --batch (default 500), each one transaction with its audit rows. A bad record is reported ' +
    'on its own line (its number, the field, why; never its hash) and never stops the good ones, unless ' +
    '--strict. A key stored already is left as it is: running the same import again changes nothing. ' +
    'With --cursor-file, the number of records done is saved after each batch, and a new run starts ' +
    'after them. --dry-run checks every record and counts what would be written, writing nothing. The ' +
    'keys verify once the service declares their format (option foreignKeys, see the migration guide).',
  arguments: [],
  options: [
    { flags: '--file <path>', help: 'the records: NDJSON (.ndjson, .jsonl) or CSV (.csv)' },
    { flags: '--format <format>', help: 'the format of --file', choices: ['ndjson', 'csv'] },
    { flags: '--from <system>', help: "read another system's database", choices: ['better-auth'] },
    { flags: '--source-url <url>', help: "better-auth's PostgreSQL database (with --from better-auth)" },
    { flags: '--source-schema <name>', help: "the schema of better-auth's tables (default public)" },
    { flags: '--source-table <name>', help: "better-auth's api-key table (default apikey)" },
    { flags: '--project <id>', help: 'the project whose API keys they become (with --from better-auth)' },
    {
      flags: '--hash-format <format>',
      help: 'how a record without hash_format writes its hash',
      choices: IMPORT_HASH_FORMATS,
    },
    { flags: '--batch <n>', help: 'records per batch, one transaction each (default 500)' },
    { flags: '--cursor-file <path>', help: 'where the number of records done is kept, to resume' },
    { flags: '--dry-run', help: 'check and count, write nothing' },
    { flags: '--strict', help: 'stop at the first bad record, before writing its batch' },
  ],
  store: true,
  // A batch is one transaction with an audit row per key: 500 of them may take seconds on a busy
  // database, longer than the 3 seconds that bound the other commands' operations.
  storeTimeoutSeconds: 60,
  exitCodes:
    '0 every record imported or present, 1 bad records (reported), 2 usage error, 3 store unavailable',
  async run(context) {
    const { io } = context
    const batchSize = batchOption(stringOption(context, 'batch'))
    const cursorFile = stringOption(context, 'cursor-file')
    const cursor = await readCursor(cursorFile)
    const file = stringOption(context, 'file')
    if (file !== undefined && !(await stat(file).catch(() => null))?.isFile()) {
      throw usageError(`--file ${printable(file)} is not a file that can be read.`)
    }
    const records = sourceOf(context.values)
    const dryRun = context.values['dry-run'] === true
    const hashFormat = stringOption(context, 'hash-format') as ImportHashFormat | undefined
    const report = await context.withKeyward((keyward) =>
      keyward.importKeys(records, {
        batchSize,
        cursor,
        dryRun,
        strict: context.values.strict === true,
        ...(hashFormat ? { hashFormat } : {}),
        onProblem: (problem) => {
          if (!context.json) io.stdout.write(`${problemLine(problem)}\n`)
        },
        onBatch: async (progress) => {
          if (cursorFile !== undefined && !dryRun) await saveCursor(cursorFile, progress.cursor)
          if (!context.json) {
            io.stderr.write(
              `${progress.cursor} records done: ${progress.written} ${dryRun ? 'to write' : 'written'}, ` +
                `${progress.present} present, ${progress.invalid} bad\n`,
            )
          }
        },
      }),
    )
    const verb = dryRun ? 'would import' : 'imported'
    const text =
      `${report.cursor} records read: ${verb} ${report.written}, ${report.present} already present, ${report.invalid} bad` +
      (report.stopped ? ` (stopped at the first bad record by --strict; records done: ${report.cursor})` : '')
    context.print(text, {
      cursor: report.cursor,
      written: report.written,
      present: report.present,
      invalid: report.invalid,
      stopped: report.stopped,
      dry_run: report.dryRun,
      problems: report.problems,
    })
    return report.invalid > 0 || report.stopped ? EXIT.failed : EXIT.ok
  },
}
