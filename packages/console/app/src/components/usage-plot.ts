// uPlot and what draws with it: a chunk of its own, loaded when a page first shows a chart, so
// that the pages without one (the projects list, the first page a visit opens) never parse it.
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import type { UsageSeries } from '../usage'

export const HEIGHT = 220

/** A colour of the page's scheme, from its custom properties (`--chart-accepted`). */
const color = (element: Element, name: string) => getComputedStyle(element).getPropertyValue(name).trim()

/** Draws the series in `element` with uPlot, in the colours of the page's current scheme. */
export function draw(element: HTMLElement, series: UsageSeries): uPlot {
  const axis = {
    stroke: color(element, '--chart-axis'),
    grid: { stroke: color(element, '--chart-grid'), width: 1 },
  }
  return new uPlot(
    {
      width: Math.max(200, element.clientWidth),
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
      axes: [axis, { ...axis, size: 56 }],
      series: [
        {},
        {
          label: 'Accepted',
          stroke: color(element, '--chart-accepted'),
          fill: color(element, '--chart-accepted-fill'),
          width: 2,
        },
        { label: 'Refused', stroke: color(element, '--chart-refused'), width: 2, dash: [6, 4] },
      ],
    },
    [series.starts, series.accepted, series.refused],
    element,
  )
}
