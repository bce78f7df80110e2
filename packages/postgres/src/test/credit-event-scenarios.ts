// The testkit's credit-event cases on every driver, reading the outbox with SQL.
import { creditEventCases } from '@keyward/testkit'
import type { Harness } from './harness.js'

export function creditEventScenarios(make: () => Promise<Harness>): void {
  creditEventCases(async () => {
    const harness = await make()
    return {
      store: harness.store,
      events: (type) =>
        harness.sql(
          `SELECT developer_id, project_id, data FROM "${harness.schema}".webhook_events WHERE type = $1 ORDER BY created_at, id`,
          [type],
        ),
    }
  })
}
