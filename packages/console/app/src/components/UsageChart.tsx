import { useEffect, useRef, useState } from 'preact/hooks'
import { messageOf, type Usage, type UsageRange as UsageQuery } from '../api'
import { rangeAt, USAGE_RANGES, type UsageSeries, usageSeries } from '../usage'
import { ListTable } from './ListTable'
import { Empty, Failed, Loading } from './States'

const count = (value: number) => value.toLocaleString('en-US')

/** The chart of `series` in a box that follows its width and the page's colour scheme. */
function Plot({ series, label }: { series: UsageSeries; label: string }) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = box.current!
    let cleanup: (() => void) | undefined
    let current = true
    void import('./usage-plot').then(({ draw, HEIGHT }) => {
      if (!current) return
      let plot = draw(element, series)
      const resize = new ResizeObserver(() =>
        plot.setSize({ width: Math.max(200, element.clientWidth), height: HEIGHT }),
      )
      resize.observe(element)
      const scheme = matchMedia('(prefers-color-scheme: dark)')
      const redraw = () => {
        plot.destroy()
        plot = draw(element, series)
      }
      scheme.addEventListener('change', redraw)
      cleanup = () => {
        scheme.removeEventListener('change', redraw)
        resize.disconnect()
        plot.destroy()
      }
    })
    return () => {
      current = false
      cleanup?.()
    }
  }, [series])
  return <div ref={box} class="chart-plot" role="img" aria-label={label} />
}

/**
 * Verifications over time, accepted against refused, of one key or of every key of an owner, in a
 * range the reader picks (24 hours, 7 days, 30 days), from the API's usage endpoint. The totals are
 * told in words beside the chart, and every bucket with counts in a table under it.
 */
export function UsageChart({ load, what }: { load: (query: UsageQuery) => Promise<Usage>; what: string }) {
  const [rangeId, setRangeId] = useState(USAGE_RANGES[0]!.id)
  const range = USAGE_RANGES.find((candidate) => candidate.id === rangeId) ?? USAGE_RANGES[0]!
  const [state, setState] = useState<{ series?: UsageSeries; failure?: unknown; loading: boolean }>({
    loading: true,
  })
  const [attempt, setAttempt] = useState(0)
  useEffect(() => {
    let current = true
    const { from, to } = rangeAt(range, Date.now())
    setState({ loading: true })
    load({ from, to, granularity: range.granularity }).then(
      (usage) =>
        current &&
        setState({ loading: false, series: usageSeries(usage.usage, from, to, range.granularity) }),
      (failure) => current && setState({ loading: false, failure }),
    )
    return () => {
      current = false
    }
  }, [load, range, attempt])

  const series = state.series
  const summary = series
    ? `${count(series.total.accepted)} accepted and ${count(series.total.refused)} refused verifications of ${what}, ${range.label.toLowerCase()}`
    : ''
  return (
    <section class="stack chart" aria-labelledby="usage-heading">
      <div class="chart-head">
        <h2 id="usage-heading">Usage</h2>
        <label for="usage-range">Range</label>
        <select id="usage-range" value={rangeId} onChange={(event) => setRangeId(event.currentTarget.value)}>
          {USAGE_RANGES.map((choice) => (
            <option key={choice.id} value={choice.id}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      {state.loading ? <Loading what="usage" /> : null}
      {state.failure !== undefined ? (
        <Failed message={messageOf(state.failure)} retry={() => setAttempt((n) => n + 1)} />
      ) : null}
      {series && series.total.accepted + series.total.refused === 0 ? (
        <Empty>
          <p>
            No verifications of {what}, {range.label.toLowerCase()}. Counts show here a few seconds after
            requests use a key.
          </p>
        </Empty>
      ) : null}
      {series && series.total.accepted + series.total.refused > 0 ? (
        <figure class="chart-figure">
          <Plot series={series} label={`Chart: ${summary}.`} />
          <figcaption class="chart-legend">
            <span>
              <span class="swatch swatch-accepted" aria-hidden="true" />
              Accepted (solid): {count(series.total.accepted)}
            </span>
            <span>
              <span class="swatch swatch-refused" aria-hidden="true" />
              Refused (dashed): {count(series.total.refused)}
            </span>
          </figcaption>
          <details>
            <summary>The counts as a table</summary>
            <UsageTable series={series} granularity={range.granularity} />
          </details>
        </figure>
      ) : null}
    </section>
  )
}

const bucketTime = {
  day: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }),
  hour: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
  minute: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
}

/** Every bucket that has counts, newest first. */
function UsageTable({ series, granularity }: { series: UsageSeries; granularity: keyof typeof bucketTime }) {
  const rows = series.starts
    .map((start, i) => ({ start, accepted: series.accepted[i]!, refused: series.refused[i]! }))
    .filter((row) => row.accepted + row.refused > 0)
    .reverse()
  return (
    <ListTable caption={`Verifications per ${granularity}`} columns={['From', 'Accepted', 'Refused']}>
      {rows.map((row) => (
        <tr key={row.start}>
          <td data-label="From">
            <time dateTime={new Date(row.start * 1000).toISOString()}>
              {bucketTime[granularity].format(new Date(row.start * 1000))}
            </time>
          </td>
          <td data-label="Accepted">{count(row.accepted)}</td>
          <td data-label="Refused">{count(row.refused)}</td>
        </tr>
      ))}
    </ListTable>
  )
}
