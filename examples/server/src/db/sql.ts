import type { PostgresTransaction } from '@keyward/postgres'

/** What runs the server's SQL: the store itself, or an open transaction of it. */
export type Sql = Pick<PostgresTransaction, 'query'>

// Ids that are not UUIDs name no row, and must not reach a uuid column (which would refuse them).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Whether `value` is a UUID in its canonical text form (any case). */
export const isUuid = (value: string): boolean => UUID.test(value)
