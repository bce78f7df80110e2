import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { messageOf, type Page, type Redelivery, type WebhookAttempt, webhooks } from '../../api'
import { Field } from '../../components/Fields'
import { ListTable } from '../../components/ListTable'
import { Message } from '../../components/Message'
import { usePaged } from '../../components/paged'
import { ListStates, When } from '../../components/States'
import { instantOf } from '../../format'
import { attemptOutcome } from './webhook-words'

// How long after a test or a redelivery the log is read again: the dispatcher delivers within a second or two.
const RELOAD_AFTER_MS = 2_000

/** A `datetime-local` value of an instant, in the reader's time zone, to the minute. */
function localOf(time: number): string {
  const date = new Date(time - new Date(time).getTimezoneOffset() * 60_000)
  return date.toISOString().slice(0, 16)
}

/**
 * An endpoint's delivery log: its last 100 attempts, newest first (the API does not page it), each
 * with its time, event type, status, duration and the first part of the answer, and "Redeliver"
 * of its event; "Refresh"; a time range's events sent again (at most 30 days: the API refuses
 * more, in its words, said under the form). `sent` changes when the page sends an event (a test),
 * and the log is read again a moment after.
 */
export function Deliveries({ endpointId, sent }: { endpointId: string; sent: number }) {
  const fetchPage = useCallback(
    async (): Promise<Page<WebhookAttempt>> => ({ items: await webhooks.attempts(endpointId), next: null }),
    [endpointId],
  )
  const paged = usePaged(fetchPage)
  const [due, setDue] = useState(0)
  const [error, setError] = useState('')
  const [info, setInfo] = useState('')
  const [from, setFrom] = useState(() => localOf(Date.now() - 86_400_000))
  const [to, setTo] = useState(() => localOf(Date.now() + 60_000))

  // Each send (a test of the page's, a redelivery of the log's) reads the log again a moment after.
  const reload = useRef(paged.reload)
  reload.current = paged.reload
  const sends = sent + due
  useEffect(() => {
    if (sends === 0) return
    const timer = setTimeout(() => void reload.current(), RELOAD_AFTER_MS)
    return () => clearTimeout(timer)
  }, [sends])

  /** Sends `which` again; `what` names it in the sentence that says how many are due. */
  const redeliver = async (which: Redelivery, what: (count: number) => string) => {
    setError('')
    setInfo('')
    try {
      const count = await webhooks.redeliver(endpointId, which)
      setInfo(
        count === 0 ? 'No event to send again.' : `${what(count)}: the log shows the attempts in a moment.`,
      )
      setDue((n) => n + 1)
    } catch (failure) {
      setError(messageOf(failure))
    }
  }
  const redeliverRange = (event: Event) => {
    event.preventDefault()
    const start = instantOf(from)
    const end = instantOf(to)
    if (start === null || end === null) return setError('Choose the time range: from and to.')
    void redeliver({ from: start, to: end }, (count) =>
      count === 1 ? '1 event of the range is due again' : `${count} events of the range are due again`,
    )
  }

  return (
    <section class="stack" aria-labelledby="deliveries-heading">
      <div class="chart-head">
        <h2 id="deliveries-heading">Deliveries</h2>
        <button type="button" class="secondary" onClick={() => void paged.reload()}>
          Refresh
        </button>
      </div>
      <p class="hint">The last 100 attempts, newest first; the log keeps 30 days.</p>
      <Message kind="error">{error}</Message>
      <Message kind="info">{info}</Message>
      <ListTable
        caption="Delivery attempts"
        columns={['When', 'Event type', 'Status', 'Duration', 'Answer', 'Actions']}
      >
        {paged.items.map((attempt) => {
          const outcome = attemptOutcome(attempt)
          return (
            <tr key={`${attempt.delivery_id}-${attempt.at}`}>
              <td data-label="When">
                <When value={attempt.at} />
              </td>
              <td data-label="Event type" class="mono">
                {attempt.event_type}
              </td>
              <td data-label="Status">
                <span class={`status status-${outcome.tone}`}>{outcome.label}</span>
              </td>
              <td data-label="Duration">{attempt.duration_ms.toLocaleString('en-US')} ms</td>
              <td data-label="Answer">
                <span class="mono clip" title={attempt.response}>
                  {attempt.response === '' ? '—' : attempt.response}
                </span>
              </td>
              <td data-label="Actions">
                <span class="actions">
                  <button
                    type="button"
                    class="secondary"
                    onClick={() =>
                      void redeliver({ event_id: attempt.event_id }, () => 'The event is due again')
                    }
                  >
                    Redeliver<span class="visually-hidden"> the event {attempt.event_id}</span>
                  </button>
                </span>
              </td>
            </tr>
          )
        })}
      </ListTable>
      <ListStates
        paged={paged}
        what="the deliveries"
        message={messageOf}
        empty={<p>No deliveries yet: send a test event, or make a change that the endpoint takes.</p>}
      />
      <form class="limit-row" onSubmit={redeliverRange} noValidate aria-labelledby="range-heading">
        <h3 id="range-heading" class="row-title">
          Send the events of a time range again (at most 30 days)
        </h3>
        {(
          [
            ['redeliver-from', 'From (your time zone)', from, setFrom],
            ['redeliver-to', 'To', to, setTo],
          ] as const
        ).map(([id, label, value, set]) => (
          <Field key={id} id={id} label={label} wide="field-unit">
            <input
              id={id}
              type="datetime-local"
              value={value}
              onInput={(event) => set(event.currentTarget.value)}
            />
          </Field>
        ))}
        <button type="submit" class="secondary">
          Redeliver range
        </button>
      </form>
    </section>
  )
}
