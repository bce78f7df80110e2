import {
  ErrorType,
  type Keyward,
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpointChange,
  type WebhookEndpointRecord,
  WebhookEndpoints,
  type WebhookEventType,
  type WebhookRedelivery,
  webhookAttemptToJson,
  webhookEndpointToJson,
  webhookEndpointWithSecretToJson,
} from '@keyward/core'
import {
  type Command,
  type CommandContext,
  idArgument,
  listOption,
  type OptionSpec,
  operatorContext,
  stringOption,
} from '../command.js'
import { CliError, EXIT, usageError } from '../exit.js'
import { plural, printable, table, timestamp } from '../output.js'
import { asUsage } from './policies.js'

/** The switches the reference server reads too: `http://` URLs, and loopback or private hosts. */
const ALLOW_HTTP_ENV = 'KEYWARD_WEBHOOKS_ALLOW_HTTP'
const ALLOW_PRIVATE_ENV = 'KEYWARD_WEBHOOKS_ALLOW_PRIVATE'

const NOT_SHOWN_AGAIN =
  'This signing secret will not be shown again: give it to the receiver now, which verifies deliveries with it.'

const ID_ARGUMENT = ['endpoint-id', 'the id of the endpoint (from keyward webhooks list)'] as const
const DEVELOPER_OPTION: OptionSpec = {
  flags: '--developer <id>',
  help: 'the developer who owns the endpoints',
}
const FILTER_OPTIONS: readonly OptionSpec[] = [
  { flags: '--description <text>', help: 'a note for you, at most 500 characters' },
  {
    flags: '--project <id>',
    help: "only this project's events (repeat it; default: every project's)",
    repeatable: true,
  },
  {
    flags: '--event <type>',
    help: `only events of this type (repeat it; default: every type): ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    repeatable: true,
  },
]

const flag = (context: CommandContext, name: string) => context.io.env[name] === '1'

// The service over the store's webhooks, checking URLs as the reference server does (the
// checker, with its resolver and address ranges, loaded only by these commands).
async function endpointsOf(keyward: Keyward, context: CommandContext): Promise<WebhookEndpoints> {
  const store = keyward.store.webhooks
  if (store === undefined) {
    throw new CliError(ErrorType.internalError, 'This key store keeps no webhooks.', EXIT.failed)
  }
  const allowPrivate = flag(context, ALLOW_PRIVATE_ENV)
  const { checkWebhookAddress } = await import('@keyward/webhooks')
  return new WebhookEndpoints(store, {
    allowHttp: flag(context, ALLOW_HTTP_ENV),
    checkAddress: (url) => checkWebhookAddress(url, { allowPrivate }),
  })
}

// The endpoint named by `<endpoint-id>` and the service over it, or exit 1.
async function withEndpoint<T>(
  context: CommandContext,
  use: (endpoints: WebhookEndpoints, endpoint: WebhookEndpointRecord) => Promise<T>,
): Promise<T> {
  const id = idArgument(context.positionals[0], '<endpoint-id>')
  return context.withKeyward(async (keyward) => {
    const endpoints = await endpointsOf(keyward, context)
    const endpoint = await endpoints.store.findEndpoint(id)
    if (endpoint === null) {
      throw new CliError(ErrorType.notFound, `No webhook endpoint with id ${printable(id)}.`, EXIT.failed)
    }
    return use(endpoints, endpoint)
  })
}

const eventsOption = (context: CommandContext) =>
  listOption(context, 'event') as readonly WebhookEventType[] | undefined

const describe = (endpoint: WebhookEndpointRecord) =>
  [
    `Endpoint     ${endpoint.id}`,
    `URL          ${printable(endpoint.url)}`,
    `Description  ${printable(endpoint.description ?? '-')}`,
    `Projects     ${printable(endpoint.projectIds?.join(', ') ?? 'all')}`,
    `Events       ${endpoint.eventTypes?.join(', ') ?? 'all'}`,
    `State        ${state(endpoint)}`,
    `Created      ${timestamp(endpoint.createdAt)}`,
  ].join('\n')

const state = (endpoint: WebhookEndpointRecord) =>
  endpoint.disabledAt
    ? `disabled since ${timestamp(endpoint.disabledAt)}`
    : endpoint.failingSince
      ? `failing since ${timestamp(endpoint.failingSince)}`
      : 'enabled'

const withSecretText = (heading: string, endpoint: WebhookEndpointRecord) =>
  [heading, '', `  Secret  ${endpoint.secret}`, '', NOT_SHOWN_AGAIN].join('\n')

/** `keyward webhooks list --developer ID`. */
export const webhooksListCommand: Command = {
  name: 'webhooks list',
  summary: "List a developer's webhook endpoints",
  description: "Lists the developer's webhook endpoints, oldest first, without their signing secrets.",
  arguments: [],
  options: [DEVELOPER_OPTION],
  store: true,
  exitCodes: '0 listed (also when there are none), 2 usage error, 3 store unavailable',
  async run(context) {
    const developerId = idArgument(stringOption(context, 'developer'), '--developer')
    return context.withKeyward(async (keyward) => {
      const listed = await (await endpointsOf(keyward, context)).list(developerId)
      const text =
        listed.length === 0
          ? `No webhook endpoints of developer ${printable(developerId)}.`
          : `${table(
              ['ID', 'URL', 'PROJECTS', 'EVENTS', 'STATE'],
              listed.map((endpoint) => [
                endpoint.id,
                endpoint.url,
                endpoint.projectIds?.join(',') ?? 'all',
                endpoint.eventTypes?.join(',') ?? 'all',
                state(endpoint),
              ]),
            )}\n\n${plural(listed.length, 'endpoint')}.`
      context.print(text, { endpoints: listed.map(webhookEndpointToJson) })
      return EXIT.ok
    })
  },
}

/** `keyward webhooks create --developer ID --url URL [--description T] [--project ID ...] [--event TYPE ...]`. */
export const webhooksCreateCommand: Command = {
  name: 'webhooks create',
  summary: 'Register a webhook endpoint; its signing secret is printed once',
  description:
    'Registers an endpoint of the developer (at most 10): an https:// URL whose host does not resolve to a ' +
    `loopback, private, link-local or metadata address (${ALLOW_HTTP_ENV}=1 and ${ALLOW_PRIVATE_ENV}=1 allow ` +
    'http:// and loopback or private hosts for development). Prints its signing secret (whsec_...) once.',
  arguments: [],
  options: [
    DEVELOPER_OPTION,
    { flags: '--url <url>', help: 'where deliveries are POSTed' },
    ...FILTER_OPTIONS,
  ],
  store: true,
  exitCodes: '0 registered, 1 refused (10 endpoints already), 2 usage error, 3 store unavailable',
  async run(context) {
    const developerId = idArgument(stringOption(context, 'developer'), '--developer')
    const url = stringOption(context, 'url')
    if (url === undefined) throw usageError('--url is required.')
    return context.withKeyward(async (keyward) => {
      const endpoints = await endpointsOf(keyward, context)
      const created = await asUsage(() =>
        endpoints.create(
          developerId,
          {
            url,
            description: stringOption(context, 'description') ?? null,
            projectIds: listOption(context, 'project') ?? null,
            eventTypes: eventsOption(context) ?? null,
          },
          operatorContext(context.io.env),
        ),
      )
      context.print(
        withSecretText(
          `Registered webhook endpoint ${created.id} of developer ${printable(developerId)}.`,
          created,
        ),
        webhookEndpointWithSecretToJson(created),
      )
      return EXIT.ok
    })
  },
}

/** `keyward webhooks show <endpoint-id>`. */
export const webhooksShowCommand: Command = {
  name: 'webhooks show',
  summary: 'Show a webhook endpoint',
  description: 'Shows an endpoint: its URL, filters and state, without its signing secret.',
  arguments: [ID_ARGUMENT],
  options: [],
  store: true,
  exitCodes: '0 shown, 1 no such endpoint, 2 usage error, 3 store unavailable',
  async run(context) {
    return withEndpoint(context, async (_endpoints, endpoint) => {
      context.print(describe(endpoint), webhookEndpointToJson(endpoint))
      return EXIT.ok
    })
  },
}

/** `keyward webhooks update <endpoint-id> [--url URL] [--description T] [--project ID ...] [--event TYPE ...] [--all-projects] [--all-events] [--enable]`. */
export const webhooksUpdateCommand: Command = {
  name: 'webhooks update',
  summary: "Change a webhook endpoint's URL, description or filters, or enable it again",
  description:
    'Changes what is given and keeps the rest. --all-projects and --all-events remove a filter; --enable ' +
    'enables an endpoint disabled after failing, and forgets its failures.',
  arguments: [ID_ARGUMENT],
  options: [
    { flags: '--url <url>', help: 'where deliveries are POSTed' },
    ...FILTER_OPTIONS,
    { flags: '--all-projects', help: "every project's events" },
    { flags: '--all-events', help: 'events of every type' },
    { flags: '--enable', help: 'enable a disabled endpoint again' },
  ],
  store: true,
  exitCodes: '0 changed, 1 no such endpoint, 2 usage error, 3 store unavailable',
  async run(context) {
    const projects = listOption(context, 'project')
    const events = eventsOption(context)
    if (projects && context.values['all-projects'])
      throw usageError('Give --project or --all-projects, not both.')
    if (events && context.values['all-events']) throw usageError('Give --event or --all-events, not both.')
    const url = stringOption(context, 'url')
    const description = stringOption(context, 'description')
    const change: WebhookEndpointChange = {
      ...(url !== undefined ? { url } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(projects ? { projectIds: projects } : context.values['all-projects'] ? { projectIds: null } : {}),
      ...(events ? { eventTypes: events } : context.values['all-events'] ? { eventTypes: null } : {}),
      ...(context.values.enable ? { disabled: false as const } : {}),
    }
    if (Object.keys(change).length === 0) throw usageError('Nothing to change: give at least one option.')
    return withEndpoint(context, async (endpoints, endpoint) => {
      const updated = await asUsage(() =>
        endpoints.update(endpoint.developerId, endpoint.id, change, operatorContext(context.io.env)),
      )
      context.print(
        `Changed webhook endpoint ${updated.id}.\n\n${describe(updated)}`,
        webhookEndpointToJson(updated),
      )
      return EXIT.ok
    })
  },
}

/** `keyward webhooks delete <endpoint-id>`. */
export const webhooksDeleteCommand: Command = {
  name: 'webhooks delete',
  summary: 'Delete a webhook endpoint and its pending deliveries',
  description:
    'Deletes the endpoint; deliveries not yet made to it are dropped. Its delivery log ages out in 30 days.',
  arguments: [ID_ARGUMENT],
  options: [],
  store: true,
  exitCodes: '0 deleted, 1 no such endpoint, 2 usage error, 3 store unavailable',
  async run(context) {
    return withEndpoint(context, async (endpoints, endpoint) => {
      await endpoints.delete(endpoint.developerId, endpoint.id, operatorContext(context.io.env))
      context.print(`Deleted webhook endpoint ${endpoint.id}.`, { id: endpoint.id, deleted: true })
      return EXIT.ok
    })
  },
}

/** `keyward webhooks roll-secret <endpoint-id> [--grace-seconds N]`. */
export const webhooksRollSecretCommand: Command = {
  name: 'webhooks roll-secret',
  summary: 'Give a webhook endpoint a new signing secret, printed once; the old one signs too for a while',
  description:
    'Makes a new signing secret. For --grace-seconds (default 86400, a day; at most 604800) every delivery ' +
    'carries a signature by each secret, so the receiver can switch to the new one meanwhile.',
  arguments: [ID_ARGUMENT],
  options: [{ flags: '--grace-seconds <n>', help: 'how long the old secret signs too, 0 to 604800' }],
  store: true,
  exitCodes: '0 rolled, 1 no such endpoint, 2 usage error, 3 store unavailable',
  async run(context) {
    const given = stringOption(context, 'grace-seconds')
    const grace = given === undefined ? undefined : Number(given)
    if (grace !== undefined && !(Number.isInteger(grace) && grace >= 0 && grace <= 604_800)) {
      throw usageError('--grace-seconds: expected a whole number from 0 to 604800.')
    }
    return withEndpoint(context, async (endpoints, endpoint) => {
      const rolled = await endpoints.rollSecret(
        endpoint.developerId,
        endpoint.id,
        grace,
        operatorContext(context.io.env),
      )
      const until = rolled.previousSecretExpiresAt ? timestamp(rolled.previousSecretExpiresAt) : '-'
      context.print(
        withSecretText(
          `Rolled the secret of webhook endpoint ${rolled.id}: the old one signs too until ${until}.`,
          rolled,
        ),
        webhookEndpointWithSecretToJson(rolled),
      )
      return EXIT.ok
    })
  },
}

/** `keyward webhooks deliveries <endpoint-id>`. */
export const webhooksDeliveriesCommand: Command = {
  name: 'webhooks deliveries',
  summary: "A webhook endpoint's delivery log: its last 100 attempts",
  description:
    'Lists the last 100 attempts to deliver to the endpoint, newest first (kept 30 days): the event, the HTTP ' +
    'status (- when there was no answer), how long it took and the start of the answer.',
  arguments: [ID_ARGUMENT],
  options: [],
  store: true,
  exitCodes: '0 listed (also when there are none), 1 no such endpoint, 2 usage error, 3 store unavailable',
  async run(context) {
    return withEndpoint(context, async (endpoints, endpoint) => {
      const attempts = await endpoints.attempts(endpoint.developerId, endpoint.id)
      const text =
        attempts.length === 0
          ? `No delivery attempts to webhook endpoint ${endpoint.id}.`
          : `${table(
              ['AT', 'EVENT', 'TYPE', 'STATUS', 'MS', 'ANSWER'],
              attempts.map((attempt) => [
                timestamp(attempt.at),
                attempt.eventId,
                attempt.eventType,
                attempt.status === null ? '-' : String(attempt.status),
                String(attempt.durationMs),
                attempt.response.slice(0, 60).replace(/\s+/g, ' '),
              ]),
            )}\n\n${plural(attempts.length, 'attempt')}.`
      context.print(text, { attempts: attempts.map(webhookAttemptToJson) })
      return EXIT.ok
    })
  },
}

// `--event-id`, or `--from` and `--to`: what a redelivery sends again.
function redeliveryOption(context: CommandContext): WebhookRedelivery {
  const eventId = stringOption(context, 'event-id')
  const from = stringOption(context, 'from')
  const to = stringOption(context, 'to')
  if ((eventId === undefined) === (from === undefined && to === undefined)) {
    throw usageError('Give either --event-id, or --from and --to.')
  }
  if (eventId !== undefined) return { eventId }
  const time = (value: string | undefined, option: string) => {
    const date = new Date(value ?? '')
    if (value === undefined || Number.isNaN(date.getTime())) {
      throw usageError(`${option}: expected a time such as 2026-03-10T12:00:00Z.`)
    }
    return date
  }
  return { from: time(from, '--from'), to: time(to, '--to') }
}

/** `keyward webhooks redeliver <endpoint-id> (--event-id ID | --from TIME --to TIME)`. */
export const webhooksRedeliverCommand: Command = {
  name: 'webhooks redeliver',
  summary: 'Send one event, or the events of a time range, to a webhook endpoint again',
  description:
    'Makes the event given by --event-id (its webhook-id, from keyward webhooks deliveries), or every event from ' +
    '--from to --to (at most 30 days) that the endpoint takes, due to it again with their attempts counted ' +
    'from zero. The dispatchers deliver them as any other.',
  arguments: [ID_ARGUMENT],
  options: [
    { flags: '--event-id <id>', help: 'the event to send again' },
    { flags: '--from <time>', help: 'the events made from this time (ISO 8601)' },
    { flags: '--to <time>', help: '... to this time (exclusive)' },
  ],
  store: true,
  exitCodes: '0 due again, 1 no such endpoint or event, 2 usage error, 3 store unavailable',
  async run(context) {
    const which = redeliveryOption(context)
    return withEndpoint(context, async (endpoints, endpoint) => {
      const count = await asUsage(() => endpoints.redeliver(endpoint.developerId, endpoint.id, which))
      context.print(`${plural(count, 'event')} due to webhook endpoint ${endpoint.id} again.`, {
        redelivered: count,
      })
      return EXIT.ok
    })
  },
}

/** `keyward webhooks test <endpoint-id>`. */
export const webhooksTestCommand: Command = {
  name: 'webhooks test',
  summary: 'Send a webhook.test event to a webhook endpoint',
  description:
    'Writes a webhook.test event for the endpoint alone (whatever its filters) into the outbox: a running ' +
    'dispatcher delivers it, signed as any other. Its attempts show in keyward webhooks deliveries.',
  arguments: [ID_ARGUMENT],
  options: [],
  store: true,
  exitCodes: '0 sent to the outbox, 1 no such endpoint, 2 usage error, 3 store unavailable',
  async run(context) {
    return withEndpoint(context, async (endpoints, endpoint) => {
      const event = await endpoints.sendTest(endpoint.developerId, endpoint.id)
      context.print(`Queued webhook.test event ${event.id} for webhook endpoint ${endpoint.id}.`, {
        event_id: event.id,
        type: event.type,
      })
      return EXIT.ok
    })
  },
}

/** @internal The `keyward webhooks ...` commands, in the order of the help. */
export const WEBHOOK_COMMANDS: readonly Command[] = [
  webhooksListCommand,
  webhooksCreateCommand,
  webhooksShowCommand,
  webhooksUpdateCommand,
  webhooksDeleteCommand,
  webhooksRollSecretCommand,
  webhooksDeliveriesCommand,
  webhooksRedeliverCommand,
  webhooksTestCommand,
]
