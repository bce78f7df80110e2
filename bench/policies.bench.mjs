// The cost of an API key's access policies per check: an IP allowlist of 100 entries (the worst
// case: an address that matches none, so every entry is compared) and 50 permissions, through the
// public check `keyward.keyAccessProblem`, on records compiled once as a cached record is. Also the
// whole cached verification with and without policies, for scale.
import { createKeyward, MemoryKeyStore } from '@keyward/core'
import { machineLine, measure, table } from './harness.mjs'

const permissions = Array.from({ length: 50 }, (_, i) => `resource${i}:action`)
// Declared, never held: the alternatives a query tries first and misses.
const unheld = Array.from({ length: 10 }, (_, i) => `other${i}:action`)
const keyward = createKeyward({
  store: new MemoryKeyStore(),
  cache: {},
  trackLastUsed: false,
  permissions: [...permissions, ...unheld],
})
const projectId = 'proj_bench'

const v4List = Array.from({ length: 100 }, (_, i) => `10.${i}.0.0/16`)
const v6List = Array.from({ length: 100 }, (_, i) => `2001:db8:${i.toString(16)}::/48`)
const mixed = [...v4List.slice(0, 50), ...v6List.slice(0, 50)]
const issue = async (policies) => keyward.issueProjectKey(projectId, policies)
const v4Key = await issue({ ipAllowlist: v4List })
const v6Key = await issue({ ipAllowlist: v6List })
const mixedKey = await issue({ ipAllowlist: mixed })
const permKey = await issue({ permissions })
const plainKey = await issue({})

// Addresses outside every entry (a full scan), and one matching the last entry.
const v4Out = Array.from({ length: 256 }, (_, i) => `192.0.${i}.1`)
const v4Mapped = v4Out.map((address) => `::ffff:${address}`)
const v4Last = Array.from({ length: 256 }, (_, i) => `10.99.${i}.7`)
const v4None = Array.from({ length: 256 }, (_, i) => `11.99.${i}.7`)
const v4MappedLast = v4Last.map((address) => `::ffff:${address}`)
const v6Out = Array.from({ length: 256 }, (_, i) => `2001:db9:${i.toString(16)}::1`)
// The longest an address is: an IPv6 address in full form, 39 characters, outside every entry.
const v6FullOut = Array.from(
  { length: 256 },
  (_, i) => `2001:0db9:${i.toString(16).padStart(4, '0')}:0000:0000:0000:0000:0001`,
)
const lastPermission = { allOf: [permissions[49]] }
const threePermissions = { allOf: [permissions[0], permissions[25], permissions[49]] }
const anyLast = { anyOf: ['resource49:action'] }
// A 10-term query whose every group is tried: alternatives the key lacks come first.
const tenTerms =
  '(other0:action or resource49:action) and resource48:action and (other1:action or other2:action or resource47:action) ' +
  'and (resource46:action and resource45:action) and (other3:action or resource44:action) and resource43:action'
const tenTermsObject = {
  and: [
    { or: ['other0:action', 'resource49:action'] },
    'resource48:action',
    { or: ['other1:action', 'other2:action', 'resource47:action'] },
    'resource46:action',
    'resource45:action',
    { or: ['other3:action', 'resource44:action'] },
    'resource43:action',
  ],
}

// A key of 5 roles of 10 permissions each (50 in all), none of its own: as the lookup joins it
// (the roles' names and the union of their permissions on the record).
const roles = []
for (let r = 0; r < 5; r++) {
  roles.push(
    await keyward.createRole(projectId, {
      name: `role${r}`,
      permissions: permissions.slice(r * 10, r * 10 + 10),
    }),
  )
}
const roleKey = await issue({ roles: roles.map((role) => role.name), permissions: [] })
const roleRecord = {
  ...roleKey.record,
  roles: roles.map((role) => role.name),
  rolePermissions: roles.flatMap((role) => role.permissions),
}

const check = (record, address, rule) => keyward.keyAccessProblem(record, address, rule)
// Compiled once, as the cache's record is on its first check.
for (const record of [v4Key, v6Key, mixedKey, permKey].map((k) => k.record))
  check(record, '10.0.0.1', lastPermission)
for (const query of [tenTerms, tenTermsObject]) {
  for (const record of [permKey.record, roleRecord]) {
    if (check(record, undefined, query) !== null) throw new Error('the 10-term query should pass')
  }
}
const roleQuery = { scope: 'project', projectId, permissions: tenTerms }
await keyward.authenticate({ projectKey: roleKey.key }, roleQuery)

const requirement = { scope: 'project', projectId }
const guarded = { scope: 'project', projectId, permissions: threePermissions }
await keyward.authenticate({ projectKey: plainKey.key, address: '10.99.0.7' }, requirement)
await keyward.authenticate({ projectKey: v4Key.key, address: '10.99.0.7' }, requirement)
await keyward.authenticate({ projectKey: permKey.key, address: '10.99.0.7' }, guarded)

const results = await measure([
  {
    name: 'IP, 100 IPv4 ranges, no match (full scan)',
    fn: (i) => check(v4Key.record, v4None[i & 255]),
  },
  { name: 'IP, 100 IPv4 ranges, match on the last', fn: (i) => check(v4Key.record, v4Last[i & 255]) },
  {
    name: 'IP, 100 IPv4 ranges, IPv4-mapped client, match on the last',
    fn: (i) => check(v4Key.record, v4MappedLast[i & 255]),
  },
  { name: 'IP, 100 IPv6 ranges, no match (full scan)', fn: (i) => check(v6Key.record, v6Out[i & 255]) },
  {
    name: 'IP, 100 IPv6 ranges, full-form 39-character client, no match',
    fn: (i) => check(v6Key.record, v6FullOut[i & 255]),
  },
  {
    name: 'IP, 50 + 50 mixed, IPv4-mapped client, no match',
    fn: (i) => check(mixedKey.record, v4Mapped[i & 255]),
  },
  {
    name: 'permissions, 50 held, allOf the last',
    fn: () => check(permKey.record, undefined, lastPermission),
  },
  { name: 'permissions, 50 held, allOf three', fn: () => check(permKey.record, undefined, threePermissions) },
  { name: 'permissions, 50 held, anyOf one', fn: () => check(permKey.record, undefined, anyLast) },
  {
    name: 'permissions, 50 held, a 10-term query (string form)',
    fn: () => check(permKey.record, undefined, tenTerms),
  },
  {
    name: 'permissions, 50 held, a 10-term query (objects)',
    fn: () => check(permKey.record, undefined, tenTermsObject),
  },
  {
    name: 'permissions, 5 roles of 10, a 10-term query (string form)',
    fn: () => check(roleRecord, undefined, tenTerms),
  },
  {
    name: 'authenticate (cached), no policies',
    fn: () => keyward.authenticateNow({ projectKey: plainKey.key, address: '10.99.0.7' }, requirement),
  },
  {
    name: 'authenticate (cached), 100 IPv4 ranges, match on the last',
    fn: () => keyward.authenticateNow({ projectKey: v4Key.key, address: '10.99.0.7' }, requirement),
  },
  {
    name: 'authenticate (cached), 50 permissions, allOf three',
    fn: () => keyward.authenticateNow({ projectKey: permKey.key, address: '10.99.0.7' }, guarded),
  },
  {
    name: 'authenticate (cached), 5 roles of 10, a 10-term query',
    fn: () => keyward.authenticateNow({ projectKey: roleKey.key }, roleQuery),
  },
])
table(
  ['case', 'ns/op'],
  [...results].map(([name, ns]) => [name, ns.toFixed(0)]),
)
const worstIp = Math.max(...[...results].filter(([name]) => name.startsWith('IP')).map(([, ns]) => ns))
const worstPermission = Math.max(
  ...[...results].filter(([name]) => name.startsWith('permissions')).map(([, ns]) => ns),
)
console.log(
  `\nWorst IP check with 100 entries: ${(worstIp / 1000).toFixed(2)} µs (target at most 2 µs); ` +
    `worst permission check with 50 permissions: ${(worstPermission / 1000).toFixed(2)} µs (target at most 1 µs). ${machineLine()}`,
)
