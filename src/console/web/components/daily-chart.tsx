import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { count, usd } from '../format.ts'
import type { Day, Totals } from '../types.ts'

const colors = ['#2f6fdb', '#d97706']

function seriesFor(kind: 'spend' | 'tokens', days: Day[], totals: Totals): { series: uPlot.Series[]; values: number[][] } {
  // Heights on the canvas need numbers; every figure a person reads (legend, table) is the exact string.
  // Without a hovered day the legend shows the whole range's total.
  const exact = (index: number | null | undefined, pick: (day: Totals) => string) =>
    index == null || !days[index] ? `${pick(totals)} in all` : pick(days[index]!)
  if (kind === 'spend') {
    return {
      series: [
        {
          label: 'Spend',
          stroke: colors[0],
          fill: 'rgba(47,111,219,0.35)',
          paths: uPlot.paths.bars!({ size: [0.7, 40] }),
          points: { show: false },
          value: (_plot, _value, _series, index) => exact(index, (day) => usd(day.spent_usd)),
        },
      ],
      // A day without spend draws no bar at all rather than a flat line of empty ones.
      values: [days.map((day) => (day.requests === 0 ? null : Number(day.spent_usd)))] as number[][],
    }
  }
  return {
    series: [
      {
        label: 'Input tokens',
        stroke: colors[0],
        width: 2,
        points: { show: false },
        value: (_plot, _value, _series, index) => exact(index, (day) => count(day.input_tokens)),
      },
      {
        label: 'Output tokens',
        stroke: colors[1],
        width: 2,
        points: { show: false },
        value: (_plot, _value, _series, index) => exact(index, (day) => count(day.output_tokens)),
      },
    ],
    values: [days.map((day) => day.input_tokens), days.map((day) => day.output_tokens)],
  }
}

/** A daily bar (spend) or line (tokens) chart, in UTC days, sized to its container. */
export function DailyChart({ days, totals, kind, title }: { days: Day[]; totals: Totals; kind: 'spend' | 'tokens'; title: string }) {
  const holder = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = holder.current!
    const { series, values } = seriesFor(kind, days, totals)
    const xs = days.map((day) => Date.parse(`${day.day}T00:00:00Z`) / 1000)
    // Canvas text and lines do not follow CSS: take the theme's colours (light or dark) from the stylesheet.
    const style = getComputedStyle(element)
    const line = { stroke: style.getPropertyValue('--border').trim() || '#d9dde3', width: 1 }
    const axisColors = { stroke: style.color, grid: line, ticks: line }
    const plot = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height: 220,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        series: [
          {
            label: 'Day (UTC)',
            value: (_plot, seconds) => (seconds == null ? 'all days' : new Date(seconds * 1000).toISOString().slice(0, 10)),
          },
          ...series,
        ],
        axes: [
          { ...axisColors },
          {
            ...axisColors,
            size: 84,
            values:
              kind === 'spend'
                ? (_plot, splits) => splits.map((value) => `$${value}`)
                : (_plot, splits) => splits.map((value) => count(value)),
          },
        ],
        // Half a day of room at each end, so the first and last bars are not cut in half.
        scales: {
          x: { time: true, range: (_plot, min, max) => [min - 43_200, max + 43_200] },
          y: { range: (_plot, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        cursor: { points: { size: 6 } },
      },
      [xs, ...values] as uPlot.AlignedData,
      element,
    )
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(element.clientWidth, 200), height: 220 }))
    resize.observe(element)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [days, totals, kind])
  const total = kind === 'spend' ? 'spend per day' : 'input and output tokens per day'
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={holder} class="chart-canvas" role="img" aria-label={`Chart of ${total}; the same figures are in the table below it.`} />
      <details>
        <summary>Show as a table</summary>
        <table class="compact">
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              {kind === 'spend' ? (
                <th scope="col">Spend</th>
              ) : (
                <>
                  <th scope="col">Input tokens</th>
                  <th scope="col">Output tokens</th>
                </>
              )}
            </tr>
          </thead>
          <tbody>
            {days
              .filter((day) => day.requests > 0)
              .map((day) => (
                <tr key={day.day}>
                  <td>{day.day}</td>
                  {kind === 'spend' ? (
                    <td class="number">{usd(day.spent_usd)}</td>
                  ) : (
                    <>
                      <td class="number">{count(day.input_tokens)}</td>
                      <td class="number">{count(day.output_tokens)}</td>
                    </>
                  )}
                </tr>
              ))}
          </tbody>
        </table>
      </details>
    </figure>
  )
}
