// One statement with parameters on a node-postgres connection, in the extended protocol, with
// less work per call than node-postgres' own `Query`: this is the path of every key lookup.
//
// `client.query(config, callback)` builds, for every call, a copy of the config, an event
// emitter, a result that compiles its row shape and looks up a parser per column, and an event
// per row. A statement of the store answers the same columns on every call: here the row shape
// and the parsers are built once per connection and statement, and reused while the server
// describes the same columns. The messages are node-postgres' own (parse, bind, describe,
// execute, sync), sent through its `Submittable` interface, which pg-cursor and
// pg-query-stream use too; values and columns are converted by node-postgres' converters
// (`prepareValue`, and the client's type parsers, custom ones included), so every row is what
// `client.query` would have returned.
import pg from 'pg'
import type { SqlRow } from './driver.js'

type Done = (error: Error | null | undefined, rows?: SqlRow[]) => void

/** A column as the server describes it (pg-protocol's `Field`). */
interface Field {
  readonly name: string
  readonly dataTypeID: number
  readonly format: string
}

/** What node-postgres' connection offers a `Submittable` (see pg-cursor). */
interface Connection {
  readonly stream: { cork?(): void; uncork?(): void }
  readonly parsedStatements: Record<string, string | undefined>
  // node-postgres 8.23 and later: named statements sent but not yet confirmed.
  readonly submittedNamedStatements?: Record<string, string | undefined>
  parse(query: { text: string; name?: string }): void
  bind(config: {
    portal: string
    statement?: string
    values?: readonly unknown[]
    binary: boolean
    valueMapper: (value: unknown) => unknown
  }): void
  describe(message: { type: 'P'; name: string }): void
  execute(config: { portal: string }): void
  sync(): void
  sendCopyFail(message: string): void
}

/** How the rows of one statement are read, built from the columns the server describes. */
interface Shape {
  readonly fields: readonly Field[]
  readonly names: readonly string[]
  readonly parsers: readonly ((value: string | Buffer) => unknown)[]
  readonly binary: boolean
  // Every column, null: a row starts as a copy of it, so that all rows share one hidden class.
  readonly empty: SqlRow
}

// How node-postgres turns a parameter into text (dates, arrays, objects, buffers): exported as
// `pg.utils` since node-postgres 8.15. Without it, statements go through `client.query`.
const prepareValue = (pg as unknown as { utils?: { prepareValue?(value: unknown): unknown } }).utils
  ?.prepareValue

const asError = (thrown: unknown) => (thrown instanceof Error ? thrown : new Error(String(thrown)))

// Per connection: the shape of each statement it has run, by name (or text, when unnamed).
const shapes = new WeakMap<pg.ClientBase, Map<string, Shape>>()

const sameFields = (a: readonly Field[], b: readonly Field[]) => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Field
    const y = b[i] as Field
    if (x.name !== y.name || x.dataTypeID !== y.dataTypeID || x.format !== y.format) return false
  }
  return true
}

function shapeOf(client: pg.ClientBase, fields: readonly Field[]): Shape {
  const empty: SqlRow = {}
  const names: string[] = []
  const parsers: ((value: string | Buffer) => unknown)[] = []
  let binary = false
  for (const field of fields) {
    const format = field.format || 'text'
    names.push(field.name)
    empty[field.name] = null
    parsers.push(
      client.getTypeParser(field.dataTypeID, format as 'text') as (value: string | Buffer) => unknown,
    )
    if (format === 'binary') binary = true
  }
  return { fields, names, parsers, binary, empty }
}

/**
 * One statement with parameters, as a node-postgres `Submittable`. node-postgres calls the
 * `handle*` methods with the server's messages, then exactly one of `handleError` (the
 * connection then forgets the statement's name) and `handleReadyForQuery`; its `query_timeout`
 * replaces `callback`, which is why it is read when the statement ends.
 */
class Statement {
  /** Set by node-postgres when the client is configured with `binary: true`. */
  binary = false
  callback: ((error: Error | null | undefined, result?: { rows: SqlRow[] }) => void) | undefined
  #shape: Shape | undefined
  #rows: SqlRow[] = []
  #failure: Error | undefined

  constructor(
    private readonly client: pg.ClientBase,
    readonly text: string,
    readonly values: readonly unknown[],
    readonly name: string | undefined,
    done: Done,
  ) {
    this.callback = (error, result) => done(error, result?.rows)
  }

  submit(connection: Connection): Error | null {
    const { name, text } = this
    const previous = name
      ? (connection.parsedStatements[name] ?? connection.submittedNamedStatements?.[name])
      : undefined
    if (previous !== undefined && previous !== text) {
      return new Error(`Prepared statements must be unique - '${name}' was used for a different statement`)
    }
    // One write for all the messages, as node-postgres does.
    connection.stream.cork?.()
    try {
      if (previous === undefined) {
        connection.parse({ text, ...(name ? { name } : {}) })
        if (name && connection.submittedNamedStatements) connection.submittedNamedStatements[name] = text
      }
      try {
        connection.bind({
          portal: '',
          ...(name ? { statement: name } : {}),
          values: this.values,
          binary: this.binary,
          valueMapper: prepareValue as (value: unknown) => unknown,
        })
      } catch (thrown) {
        // A value that cannot be sent: nothing runs. A statement parsed just now stays parsed,
        // as the connection will record it.
        connection.sync()
        this.#finish(asError(thrown))
        return null
      }
      connection.describe({ type: 'P', name: '' })
      connection.execute({ portal: '' })
      connection.sync()
    } finally {
      connection.stream.uncork?.()
    }
    return null
  }

  handleRowDescription(message: { fields: readonly Field[] }): void {
    let byStatement = shapes.get(this.client)
    if (!byStatement) {
      byStatement = new Map()
      shapes.set(this.client, byStatement)
    }
    const key = this.name || this.text
    let shape = byStatement.get(key)
    if (!shape || !sameFields(shape.fields, message.fields)) {
      shape = shapeOf(this.client, message.fields)
      byStatement.set(key, shape)
    }
    this.#shape = shape
  }

  handleDataRow(message: { fields: readonly (string | null)[] }): void {
    const shape = this.#shape
    if (this.#failure !== undefined || !shape) return
    const row = { ...shape.empty }
    const values = message.fields
    try {
      for (let i = 0; i < values.length; i++) {
        const value = values[i]
        // Every column is written, in order, so that of two with one name the last wins.
        row[shape.names[i] as string] =
          value === null || value === undefined
            ? null
            : (shape.parsers[i] as (value: string | Buffer) => unknown)(
                // As node-postgres reads a binary column.
                shape.binary && shape.fields[i]?.format === 'binary' ? Buffer.from(value) : value,
              )
      }
    } catch (thrown) {
      // Reported once the server is done with the statement, as node-postgres does.
      this.#failure = asError(thrown)
      return
    }
    this.#rows.push(row)
  }

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail('No source stream defined')
  }

  handleCopyData(): void {}

  handleError(error: Error): void {
    this.#finish(error)
  }

  handleReadyForQuery(): void {
    if (this.#failure !== undefined) this.#finish(this.#failure)
    else this.#finish(undefined, this.#rows)
  }

  #finish(error: Error | undefined, rows?: SqlRow[]): void {
    const callback = this.callback
    this.callback = undefined
    try {
      callback?.(error, rows ? { rows } : undefined)
    } catch (thrown) {
      // Not into node-postgres, which would stop running this connection's queue: as its own
      // query does, thrown where nothing can catch it.
      process.nextTick(() => {
        throw thrown
      })
    }
  }
}

/**
 * Whether `client` is node-postgres' JavaScript client (not pg-native), of version 8.15 or
 * later, outside pipeline mode.
 */
const submits = (client: pg.ClientBase) => {
  const { connection, pipeline } = client as unknown as {
    connection?: Partial<Connection>
    pipeline?: boolean
  }
  return prepareValue !== undefined && !pipeline && typeof connection?.parsedStatements === 'object'
}

/**
 * @internal Runs one statement on `client` and calls `done` with its rows, as
 * `client.query({ text, values, name }, callback)` would: a statement with parameters or a
 * name goes through {@link Statement}; anything else (BEGIN, COMMIT, several statements in
 * one), and everything on node-postgres before 8.15, through node-postgres' own query.
 */
export function runStatement(
  client: pg.ClientBase,
  text: string,
  values: readonly unknown[] | undefined,
  name: string | undefined,
  done: Done,
): void {
  if ((name || (values && values.length > 0)) && submits(client)) {
    client.query(new Statement(client, text, values ?? [], name, done) as unknown as pg.Submittable)
    return
  }
  client.query({ text, values: values as unknown[] | undefined, name }, (error, result) =>
    done(error, result?.rows),
  )
}
