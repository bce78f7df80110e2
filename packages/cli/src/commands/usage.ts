import { isKeywardError, readUsageQuery } from '@keyward/core'
import { type Command, idArgument, ownerOption, stringOption } from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { plural, printable, table } from '../output.js'

/** `keyward usage --developer ID | --project ID`: verifications per bucket, key and outcome. */
export const usageCommand: Command = {
  name: 'usage',
  summary: "Show the usage counts of a developer's, a project's or an identity's keys",
  description:
    "Shows how often a developer's, a project's or an identity's keys were verified, per bucket (--granularity " +
    'minute, hour or day; default hour), key and outcome: accepted, or the refusal (expired, ' +
    'wrong_project, ...). The range is --from to --to (ISO 8601 with an offset; default the last 24 ' +
    'hours), within what is kept (minutes 7 days, hours 90, days 730). Counts reach the store every ' +
    'few seconds from each server process (5 by default): the last seconds may not be in it yet. ' +
    'With --identity, the counts of the keys that belong to the identity now. ' +
    '--json prints what GET /api/v1/projects/{project_id}/usage answers.',
  arguments: [],
  options: [
    { flags: '--developer <id>', help: "this developer's keys" },
    { flags: '--project <id>', help: "this project's API keys" },
    { flags: '--identity <id>', help: "this identity's API keys (instead of --developer or --project)" },
    { flags: '--key <id>', help: 'only this key (its id, from keyward keys list)' },
    { flags: '--granularity <size>', help: 'the size of a bucket', choices: ['minute', 'hour', 'day'] },
    { flags: '--from <time>', help: 'the start of the range (default: 24 hours before --to)' },
    { flags: '--to <time>', help: 'the end of the range, exclusive (default: now)' },
  ],
  store: true,
  exitCodes: '0 shown (also when there are no counts), 2 usage error, 3 store unavailable',
  async run(context) {
    const identityId = stringOption(context, 'identity')
    const owner = identityId === undefined ? ownerOption(context) : undefined
    if (identityId !== undefined && (context.values.developer || context.values.project)) {
      throw usageError('Give one of --developer ID, --project ID or --identity ID.')
    }
    // The options as the endpoint's query, checked by the same rules (a range past the retention...).
    const query = (['from', 'to', 'granularity', 'key'] as const)
      .flatMap((name) => {
        const value = stringOption(context, name)
        return value === undefined ? [] : [`${name === 'key' ? 'key_id' : name}=${encodeURIComponent(value)}`]
      })
      .join('&')
    return context.withKeyward(async (keyward) => {
      if (!keyward.usageRetention) throw usageError('This store keeps no usage counts.')
      let range: ReturnType<typeof readUsageQuery>
      try {
        range = readUsageQuery({ url: `?${query}` }, keyward.usageRetention, new Date())
      } catch (error) {
        if (!isKeywardError(error)) throw error
        const option = error.loc[1] === 'key_id' ? 'key' : error.loc[1]
        throw usageError(`--${option}: ${error.msg}`)
      }
      // An identity's usage is the counts of the keys that belong to it now.
      const rows = owner
        ? await keyward.readUsage({ owner, ...range })
        : await keyward.readIdentityUsage(idArgument(identityId, '--identity'), range)
      if (rows === null) {
        throw new CliError('not_found', `No identity with id ${printable(identityId!)}.`, EXIT.failed)
      }
      const total = rows.reduce((sum, row) => sum + row.count, 0)
      const who = owner ? `${owner.type} ${printable(owner.id)}` : `identity ${printable(identityId!)}`
      const span = `${range.from.toISOString()} to ${range.to.toISOString()}, by ${range.granularity}`
      const text =
        rows.length === 0
          ? `No verifications of the keys of ${who} from ${span}.`
          : `${table(
              ['START', 'KEY', 'OUTCOME', 'COUNT'],
              rows.map((row) => [row.start.toISOString(), row.keyId, row.outcome, String(row.count)]),
            )}\n\n${plural(total, 'verification')} of the keys of ${who} from ${span}.`
      context.print(text, {
        granularity: range.granularity,
        from: range.from.toISOString(),
        to: range.to.toISOString(),
        usage: rows.map((row) => ({
          start: row.start.toISOString(),
          key_id: row.keyId,
          outcome: row.outcome,
          count: row.count,
        })),
      })
      return EXIT.ok
    })
  },
}
