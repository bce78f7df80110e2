import { afterEach, expect, it } from 'vitest'
import { keywardOver } from '../service.js'
import { describeBackends } from '../test/databases.js'
import { openTestStore, testRows } from '../test/harness.js'
import { registerFirstDeveloper } from './developers.js'

describeBackends('registerFirstDeveloper (%s)', (backend) => {
  const opened: Array<() => Promise<void>> = []
  const open = async () => {
    const { store, drop } = await openTestStore(backend)
    opened.push(drop)
    return store
  }
  afterEach(async () => {
    for (const drop of opened.splice(0)) await drop()
  })

  it('registers one developer on empty storage, once', async () => {
    const store = await open()
    const rows = testRows(store)
    const first = await registerFirstDeveloper(store, (tx) => keywardOver(tx))
    expect(first).toEqual({
      developerId: expect.stringMatching(/^dev_[0-9a-f]{8}$/),
      key: expect.any(String),
    })
    const auth = await keywardOver(store).authenticate({ developerKey: first!.key }, { scope: 'developer' })
    expect(auth.developerId).toBe(first!.developerId)
    expect(await rows('SELECT id FROM app.developers')).toEqual([{ id: first!.developerId }])

    expect(await registerFirstDeveloper(store, (tx) => keywardOver(tx))).toBeNull()
    expect(await rows('SELECT count(*) AS n FROM keyward.api_keys')).toEqual([{ n: 1 }])
  })

  it('registers nobody when a developer key exists already (registered with the CLI)', async () => {
    const store = await open()
    const rows = testRows(store)
    await keywardOver(store).issueDeveloperKey('dev_cli')
    expect(await registerFirstDeveloper(store, (tx) => keywardOver(tx))).toBeNull()
    expect(await rows('SELECT id FROM app.developers')).toEqual([])
  })

  it('registers one developer when starts race on one database', async () => {
    const store = await open()
    const rows = testRows(store)
    const results = await Promise.all(
      Array.from({ length: 8 }, () => registerFirstDeveloper(store, (tx) => keywardOver(tx))),
    )
    expect(results.filter((result) => result !== null)).toHaveLength(1)
    expect(await rows('SELECT count(*) AS n FROM app.developers')).toEqual([{ n: 1 }])
  })
})
