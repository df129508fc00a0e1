import { fractionWidth, Money } from '../components/money.tsx'
import { Empty, NumberHeading, Resolved, TableScroll } from '../components/states.tsx'
import { count, formatTime } from '../format.ts'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'
import type { Model, RouteHealth } from '../types.ts'
import { useResource } from '../use-resource.ts'

const stateClass: Record<RouteHealth['state'], string> = { closed: 'ok', 'half-open': 'warn', open: 'error' }

/** A model billed per image or per search unit shows those prices where a token model shows its input price. */
function unitPrices(model: Model) {
  const { images_usd: images, search_unit_usd: searchUnit } = model.price
  if (images)
    return (
      <span data-testid="image-prices">
        {Object.entries(images)
          .map(([key, amount]) => `${key} $${amount}`)
          .join(' · ')}{' '}
        per image
      </span>
    )
  if (searchUnit !== undefined) return <span>${searchUnit} per search unit</span>
  return undefined
}

/** Chat models, and image models priced per token (their images' tokens, up to `max_output_tokens` each), bill output. */
const billsOutput = (model: Model) => model.kind === 'chat' || (model.kind === 'image' && !model.price.images_usd)

function ModelTable({ models }: { models: Model[] }) {
  const withBatch = models.some((model) => model.batch_price !== null)
  const width = (pick: (model: Model) => string | undefined) => fractionWidth(models.map(pick))
  const widths = {
    input: width((model) => model.price.input_usd),
    output: width((model) => model.price.output_usd),
    cached: width((model) => model.price.cached_input_usd),
    batchInput: width((model) => model.batch_price?.input_usd),
    batchOutput: width((model) => model.batch_price?.output_usd),
  }
  return (
    <TableScroll label="Models">
      <table class="stack" data-testid="models-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <NumberHeading>Input</NumberHeading>
            <NumberHeading>Output</NumberHeading>
            <NumberHeading>Cached input</NumberHeading>
            {withBatch && (
              <>
                <NumberHeading>Batch input</NumberHeading>
                <NumberHeading>Batch output</NumberHeading>
              </>
            )}
            <NumberHeading>Context window</NumberHeading>
            <NumberHeading>Max output</NumberHeading>
          </tr>
        </thead>
        <tbody>
          {models.map((model) => (
            <tr key={model.id}>
              <td data-label="Model">
                <code>{model.id}</code>
                {model.reasoning && <span class="muted"> · reasoning</span>}
                {model.kind !== 'chat' && <span class="muted"> · {model.kind}</span>}
              </td>
              <td class="number" data-label="Input per 1M">
                {unitPrices(model) ?? <Money amount={model.price.input_usd} width={widths.input} />}
              </td>
              {/* An embedding model is billed by input tokens only: its other prices do not exist. */}
              <td class="number" data-label="Output per 1M">
                {billsOutput(model) ? <Money amount={model.price.output_usd} width={widths.output} /> : <span class="muted">—</span>}
              </td>
              <td class="number" data-label="Cached input per 1M">
                {model.kind === 'chat' ? (
                  <Money amount={model.price.cached_input_usd} width={widths.cached} />
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
              {withBatch && (
                <>
                  <td class="number" data-label="Batch input per 1M" data-testid="batch-input">
                    {model.batch_price ? (
                      <Money amount={model.batch_price.input_usd} width={widths.batchInput} />
                    ) : (
                      <span class="muted">as live</span>
                    )}
                  </td>
                  <td class="number" data-label="Batch output per 1M">
                    {model.kind !== 'chat' ? (
                      <span class="muted">—</span>
                    ) : model.batch_price ? (
                      <Money amount={model.batch_price.output_usd} width={widths.batchOutput} />
                    ) : (
                      <span class="muted">as live</span>
                    )}
                  </td>
                </>
              )}
              <td class="number" data-label="Context window">
                {model.context_window === null ? <span class="muted">—</span> : count(model.context_window)}
              </td>
              <td class="number" data-label="Max output">
                {billsOutput(model) ? count(model.max_output_tokens) : <span class="muted">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  )
}

/** "60 s", "5 min": how far back the breaker's counts reach. */
function describeWindow(seconds: number): string {
  return seconds % 60 === 0 && seconds >= 60 ? `${seconds / 60} min` : `${seconds} s`
}

function RouteTable({ routes }: { routes: RouteHealth[] }) {
  const window = routes[0] ? ` (last ${describeWindow(routes[0].window_s)})` : ''
  return (
    <TableScroll label="Route health">
      <table class="stack" data-testid="routes-table">
        <thead>
          <tr>
            <th scope="col">Route</th>
            <th scope="col">Circuit</th>
            <NumberHeading>Requests{window}</NumberHeading>
            <NumberHeading>Failures{window}</NumberHeading>
            <NumberHeading>Trips (since start)</NumberHeading>
            <th scope="col">Last failure</th>
          </tr>
        </thead>
        <tbody>
          {routes.map((route) => (
            <tr key={route.route}>
              <td data-label="Route">
                <code>{route.route}</code>
              </td>
              <td data-label="Circuit">
                <span class={`badge badge-${stateClass[route.state]}`}>{route.state}</span>
                {route.open_until && <span class="muted"> until {formatTime(route.open_until)}</span>}
              </td>
              <td class="number" data-label="Requests">
                {count(route.requests)}
              </td>
              <td class="number" data-label="Failures">
                {count(route.failures)}
              </td>
              <td class="number" data-label="Trips">
                {count(route.trips)}
              </td>
              <td data-label="Last failure">{route.last_failure ?? <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  )
}

/** What can be called and what it costs; for an admin also whether each upstream route is in rotation. */
export function Models({ session }: PageProps) {
  const admin = session.user.role === 'admin'
  const models = useResource<Model[]>('/models')
  const routes = useResource<RouteHealth[]>(admin ? '/routes' : null)
  return (
    <>
      <PageHeader title="Models" />
      <p class="hint">
        Prices in USD per million tokens, exact. {admin ? 'Every configured model.' : "The models your account's keys may use."}
      </p>
      <Resolved resource={models} label="Loading models…">
        {(list) =>
          list.length === 0 ? (
            <Empty>
              <p>None of your keys can call a model yet.</p>
              <p>
                <a href="/console/keys/new">Create a key</a>
              </p>
            </Empty>
          ) : (
            <ModelTable models={list} />
          )
        }
      </Resolved>
      {admin && (
        <>
          <h2>Route health</h2>
          <Resolved resource={routes} label="Loading route health…">
            {(list) => (
              <>
                <p class="hint" data-testid="routes-window">
                  Each upstream route's circuit breaker. Requests and failures count
                  {list[0] ? ` the last ${describeWindow(list[0].window_s)} only` : ' a recent window only'} (<code>routing.window_s</code>
                  ), so they fall back to 0 when traffic stops; an open circuit is skipped until a probe succeeds.
                </p>
                <RouteTable routes={list} />
              </>
            )}
          </Resolved>
        </>
      )}
    </>
  )
}
