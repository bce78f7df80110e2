import { describe, expect, it } from 'vitest'
import { MemoryProjects } from './memory-projects.js'

describe('MemoryProjects', () => {
  it('creates projects and knows their owners', async () => {
    const projects = new MemoryProjects([{ id: 'proj_1', name: 'Example', developerId: 'dev_1' }])
    expect(projects.owner('proj_1')).toBe('dev_1')
    expect(projects.owner('proj_2')).toBeNull()
    const created = await projects.createProject({
      developerId: 'dev_2',
      name: 'Shop',
      audit: { actor: { type: 'system' } },
      issueDefaultKey: async () => {
        throw new Error('not called here')
      },
    })
    expect(created).toMatchObject({ name: 'Shop', developerId: 'dev_2' })
    expect(projects.owner(created.id)).toBe('dev_2')
    expect(projects.delete(created.id)).toBe(true)
    expect(projects.owner(created.id)).toBeNull()
  })

  it("lists a developer's projects newest first, each once, a page at a time", async () => {
    const at = new Date('2026-01-01T00:00:00.000Z')
    const projects = new MemoryProjects([
      ...Array.from({ length: 7 }, (_, i) => ({
        id: `p${i}`,
        name: `P${i}`,
        developerId: 'dev_1',
        createdAt: at,
      })),
      { id: 'other', name: 'Other', developerId: 'dev_2', createdAt: at },
      { id: 'newest', name: 'Newest', developerId: 'dev_1', createdAt: new Date(at.getTime() + 1) },
    ])
    const seen: string[] = []
    let after: { createdAt: string; id: string } | undefined
    for (;;) {
      const page = await projects.listProjects({
        developerId: 'dev_1',
        limit: 3,
        ...(after ? { after } : {}),
      })
      seen.push(...page.projects.map((project) => project.id))
      if (page.next === null) break
      after = { createdAt: new Date(page.next.createdAt).toISOString(), id: page.next.id }
    }
    expect(seen).toEqual(['newest', 'p6', 'p5', 'p4', 'p3', 'p2', 'p1', 'p0'])
  })
})
