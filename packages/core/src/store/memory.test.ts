import { runStoreConformance } from '@keyward/testkit'
import type { KeyRecord } from '../store/types.js'
import { MemoryKeyStore } from './memory.js'

runStoreConformance({
  name: 'MemoryKeyStore',
  makeStore: () => {
    const records = new Map<string, KeyRecord>()
    return {
      store: new MemoryKeyStore({ records }),
      readRaw: async () => [...records.values()].map((r) => ({ ...r })),
    }
  },
})
