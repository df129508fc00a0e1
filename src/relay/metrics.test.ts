import { expect, test } from 'bun:test'
import { Metrics } from './metrics.ts'

test('Prometheus text: counters by label, label values escaped, route states as one-hot gauges', () => {
  const metrics = new Metrics()
  metrics.requests.inc({ model: 'a"b\\c\nd', provider: 'p', status: 200 })
  metrics.requests.inc({ model: 'plain', provider: 'p', status: 200 }, 2)
  const text = metrics.render({ inFlight: 3, routes: [{ route: 'p/x', state: 'half-open', requests: 4, failures: 1, trips: 2 }] })
  expect(text).toContain('tollgate_requests_total{model="a\\"b\\\\c\\nd",provider="p",status="200"} 1\n')
  expect(text).toContain('tollgate_requests_total{model="plain",provider="p",status="200"} 2\n')
  expect(text).toContain('tollgate_requests_in_flight 3\n')
  expect(text).toContain(
    'tollgate_route_state{route="p/x",state="half-open"} 1\ntollgate_route_state{route="p/x",state="closed"}'.split('\n')[0],
  )
  expect(text).toContain('tollgate_route_state{route="p/x",state="closed"} 0\n')
  expect(text).toContain('tollgate_route_trips_total{route="p/x"} 2\n')
})
