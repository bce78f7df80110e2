import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import {
  type CreateWebhookEndpointBody,
  type Page,
  type Project,
  projects as projectCalls,
  type UpdateWebhookEndpointBody,
  type WebhookEndpoint,
  type WebhookEventType,
} from '../../api'
import { EVENT_TYPES } from './webhook-words'

// How many pages of projects the filter offers (50 to a page); a project past them that an endpoint
// takes is offered by its id.
const PROJECT_PAGES = 4

/** The developer's projects, the first pages of them, read once: what an endpoint's filter offers. */
export function useProjects(): readonly Project[] {
  const [found, setFound] = useState<readonly Project[]>([])
  useEffect(() => {
    let current = true
    void (async () => {
      const read: Project[] = []
      let cursor: string | null = null
      for (let page = 0; page < PROJECT_PAGES; page++) {
        const listed: Page<Project> | null = await projectCalls.list(cursor).catch(() => null)
        if (listed === null) break
        read.push(...listed.items)
        if (listed.next === null) break
        cursor = listed.next
      }
      if (current) setFound(read)
    })()
    return () => {
      current = false
    }
  }, [])
  return found
}

/** A group of boxes, any of them ticked; none ticked means every one (`legend` says so). */
function Checks<T extends string>({
  legend,
  options,
  chosen,
  onChange,
}: {
  legend: string
  options: readonly { readonly value: T; readonly label: ComponentChildren }[]
  chosen: readonly T[]
  onChange: (chosen: T[]) => void
}) {
  return (
    <fieldset class="stack checks">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label class="check" key={option.value}>
          <input
            type="checkbox"
            checked={chosen.includes(option.value)}
            onChange={(event) =>
              onChange(
                event.currentTarget.checked
                  ? [...chosen, option.value]
                  : chosen.filter((value) => value !== option.value),
              )
            }
          />
          <span>{option.label}</span>
        </label>
      ))}
    </fieldset>
  )
}

const same = (a: readonly string[] | null, b: readonly string[] | null) =>
  (a === null) === (b === null) && [...(a ?? [])].sort().join('\n') === [...(b ?? [])].sort().join('\n')

/**
 * An endpoint's fields (its URL, description, and the projects and event types it takes, none
 * ticked: every one), starting from `start` when it is edited. `body()` is a creation's body,
 * `change()` an edit's: only the fields that differ from `start`.
 */
export function useEndpointFields(idPrefix: string, start?: WebhookEndpoint) {
  const projects = useProjects()
  const [url, setUrl] = useState(start?.url ?? '')
  const [description, setDescription] = useState(start?.description ?? '')
  const [projectIds, setProjectIds] = useState<readonly string[]>(start?.project_ids ?? [])
  const [eventTypes, setEventTypes] = useState<readonly WebhookEventType[]>(start?.event_types ?? [])

  const body = (): CreateWebhookEndpointBody => ({
    url: url.trim(),
    description: description.trim() === '' ? null : description.trim(),
    project_ids: projectIds.length === 0 ? null : [...projectIds],
    event_types: eventTypes.length === 0 ? null : [...eventTypes],
  })
  const change = (): UpdateWebhookEndpointBody => {
    const all = body()
    if (!start) return all
    return {
      ...(all.url === start.url ? {} : { url: all.url }),
      ...(all.description === start.description ? {} : { description: all.description }),
      ...(same(all.project_ids ?? null, start.project_ids) ? {} : { project_ids: all.project_ids }),
      ...(same(all.event_types ?? null, start.event_types) ? {} : { event_types: all.event_types }),
    }
  }

  // The projects offered: the developer's, and any the endpoint takes that the first pages lack.
  const offered = [
    ...projects.map((project) => ({ value: project.id, label: project.name })),
    ...projectIds
      .filter((id) => !projects.some((project) => project.id === id))
      .map((id) => ({ value: id, label: <span class="mono">{id}</span> })),
  ]
  const inputs = (
    <>
      <label for={`${idPrefix}-url`}>URL (deliveries are POSTed to it)</label>
      <input
        id={`${idPrefix}-url`}
        type="url"
        class="mono"
        maxLength={2048}
        value={url}
        onInput={(event) => setUrl(event.currentTarget.value)}
        placeholder="https://hooks.example.com/keyward"
        autoComplete="off"
        aria-describedby={`${idPrefix}-error`}
      />
      <label for={`${idPrefix}-description`}>Description (optional)</label>
      <input
        id={`${idPrefix}-description`}
        maxLength={500}
        value={description}
        onInput={(event) => setDescription(event.currentTarget.value)}
        placeholder="e.g. billing service, production"
        autoComplete="off"
      />
      <Checks
        legend="Projects (none ticked: every project, and your developer keys)"
        options={offered}
        chosen={projectIds}
        onChange={setProjectIds}
      />
      <Checks
        legend="Event types (none ticked: every type)"
        options={EVENT_TYPES.map((entry) => ({
          value: entry.type,
          label: (
            <>
              <code>{entry.type}</code> <span class="muted">{entry.label}</span>
            </>
          ),
        }))}
        chosen={eventTypes}
        onChange={setEventTypes}
      />
    </>
  )
  return { inputs, body, change, projects }
}
