import { type AuditRecord, auditRecordToJson, displayKey, type Keyward, MAX_PAGE_LIMIT } from '@keyward/core'
import { type Command, type CommandContext, idArgument, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { plural, printable, table, timestamp } from '../output.js'

// How many rows `audit export` reads at a time.
const EXPORT_PAGE = 1000

// A whole number option from `min` to `max`, or `undefined` when not given.
function countOption(context: CommandContext, name: string, min: number, max: number): number | undefined {
  const value = stringOption(context, name)
  if (value === undefined) return undefined
  if (!/^\d{1,16}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw usageError(`--${name} must be a whole number from ${min} to ${max}.`)
  }
  return Number(value)
}

// The store's audit log, or the error that says the store keeps none.
function auditLog(keyward: Keyward) {
  const { readAuditLog, auditChainHead } = keyward.store
  if (!keyward.auditing || !readAuditLog || !auditChainHead) {
    throw new CliError('audit_unavailable', 'This store keeps no audit log.', EXIT.failed)
  }
  return { read: readAuditLog.bind(keyward.store), head: auditChainHead.bind(keyward.store) }
}

const actorText = (row: AuditRecord) => {
  const { actor } = row
  if (actor.type === 'developer') return `${printable(actor.developerId)} ${displayKey(actor.keyPrefix)}`
  return actor.type === 'operator' && actor.name
    ? `operator ${printable(actor.name)}`
    : actor.type.replace('_', ' ')
}

/** `keyward audit list [--developer ID [--project ID]] [--limit N] [--before SEQ]`: recent rows. */
export const auditListCommand: Command = {
  name: 'audit list',
  summary: 'List the latest rows of the audit log, of everyone or of one developer',
  description:
    'Lists the audit log, newest first: who changed what (a developer by id and key prefix, the ' +
    "operator, secret scanning, or the system), when, and from where. With --developer, that developer's " +
    'rows only (of one of their projects with --project). --before SEQ gives the rows before that one: ' +
    'the last line says how to ask for the next page. The log never holds a key: keys show as their ' +
    '8-character prefix. --json gives every field, the changed fields before and after included.',
  arguments: [],
  options: [
    { flags: '--developer <id>', help: "only this developer's rows" },
    { flags: '--project <id>', help: "only this project's rows (with --developer)" },
    { flags: '--limit <n>', help: `at most n rows, 1 to ${MAX_PAGE_LIMIT} (default 50)` },
    { flags: '--before <seq>', help: 'the rows before this one (from a previous page)' },
  ],
  store: true,
  exitCodes: '0 listed (also when there are none), 1 no audit log, 2 usage error, 3 store unavailable',
  async run(context) {
    const developer = stringOption(context, 'developer')
    const project = stringOption(context, 'project')
    if (project !== undefined && developer === undefined) throw usageError('--project needs --developer ID.')
    const limit = countOption(context, 'limit', 1, MAX_PAGE_LIMIT) ?? 50
    const before = countOption(context, 'before', 1, Number.MAX_SAFE_INTEGER)
    return context.withKeyward(async (keyward) => {
      const log = auditLog(keyward)
      let rows: AuditRecord[]
      if (developer !== undefined) {
        const page = await keyward.listAudit(idArgument(developer, '--developer'), {
          limit,
          ...(project === undefined ? {} : { projectId: idArgument(project, '--project') }),
          ...(before === undefined ? {} : { beforeSeq: before }),
        })
        rows = page.records
      } else {
        const end = before === undefined ? (await log.head()).seq + 1 : before
        const start = Math.max(0, end - 1 - limit)
        rows = (await log.read(start, end - 1 - start)).reverse()
      }
      const last = rows.at(-1)
      const next = last && last.seq > 1 && rows.length === limit ? last.seq : null
      const more = next
        ? `\nOlder rows: keyward audit list${developer ? ` --developer ${printable(developer)}` : ''}${project ? ` --project ${printable(project)}` : ''} --limit ${limit} --before ${next}`
        : ''
      const text =
        rows.length === 0
          ? `No audit rows.${more}`
          : `${table(
              ['SEQ', 'AT', 'ACTION', 'ACTOR', 'TARGET', 'ADDRESS'],
              rows.map((row) => [
                String(row.seq),
                timestamp(row.at),
                row.action,
                actorText(row),
                `${row.targetType} ${printable(row.targetId)}`,
                row.clientAddress ?? '-',
              ]),
            )}\n\n${plural(rows.length, 'row')}.${more}`
      context.print(text, { entries: rows.map(auditRecordToJson), next_before: next })
      return EXIT.ok
    })
  },
}

/** `keyward audit verify`: checks the whole chain. */
export const auditVerifyCommand: Command = {
  name: 'audit verify',
  summary: 'Check the audit log: no row edited, deleted or reordered',
  description:
    "Reads the whole audit log, oldest first, and checks its hash chain: every row's hash against " +
    'its content, every row against the hash of the one before, no seq missing, and the last row ' +
    "against the chain's head. It reports the first row where the chain breaks. Keep the head's hash " +
    '(--json gives it) somewhere else too: a log rewritten from some row on, its head included, is ' +
    'found out by comparing with a head kept earlier.',
  arguments: [],
  options: [],
  store: true,
  exitCodes: '0 intact, 1 broken (or no audit log), 2 usage error, 3 store unavailable',
  async run(context) {
    return context.withKeyward(async (keyward) => {
      const head = await auditLog(keyward).head()
      const result = await keyward.verifyAudit()
      const json = {
        ok: result.ok,
        checked: result.checked,
        last_seq: result.lastSeq,
        ...(result.problem ? { problem: result.problem } : {}),
        head: { seq: head.seq, hash: head.hash },
      }
      if (!result.ok) {
        context.print(`The audit log is broken: ${result.problem?.message}`, json)
        return EXIT.failed
      }
      context.print(
        `The audit log is intact: ${plural(result.checked, 'row')} checked, up to row ${result.lastSeq} (hash ${head.hash}).`,
        json,
      )
      return EXIT.ok
    })
  },
}

/** `keyward audit export --ndjson [--after SEQ]`: every row, one JSON object per line. */
export const auditExportCommand: Command = {
  name: 'audit export',
  summary: 'Write the audit log as NDJSON, one row per line, oldest first',
  description:
    'Writes every row of the audit log (after row --after SEQ, when given) to standard output, one ' +
    'JSON object per line, oldest first, in the form GET /api/v1/audit gives: seq, at, action, actor, ' +
    'client_address, request_id, developer_id, project_id, target, before, after, previous_hash, hash. ' +
    "Each row's hash is SHA-256 of the canonical JSON of the row without hash (keys sorted, no " +
    'spaces), so the export can be checked without Keyward. --ndjson is required (the only format).',
  arguments: [],
  options: [
    { flags: '--ndjson', help: 'one JSON object per line (required)' },
    { flags: '--after <seq>', help: 'only the rows after this one' },
  ],
  store: true,
  exitCodes: '0 exported, 1 no audit log, 2 usage error, 3 store unavailable',
  async run(context) {
    if (context.values.ndjson !== true)
      throw usageError('Give --ndjson: the export is NDJSON, one row per line.')
    let after = countOption(context, 'after', 0, Number.MAX_SAFE_INTEGER) ?? 0
    return context.withKeyward(async (keyward) => {
      const log = auditLog(keyward)
      for (;;) {
        const rows = await log.read(after, EXPORT_PAGE)
        for (const row of rows) context.io.stdout.write(`${JSON.stringify(auditRecordToJson(row))}\n`)
        if (rows.length < EXPORT_PAGE) return EXIT.ok
        after = rows.at(-1)!.seq
      }
    })
  },
}
