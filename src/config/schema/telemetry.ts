import { Type } from '@sinclair/typebox'
import { entry, headers, readOnly, text } from './shapes.ts'

/** OpenTelemetry traces over OTLP/HTTP; without the section no span is made. */
export const telemetrySchema = Type.Transform(
  entry(
    {
      otlp_endpoint: text({
        pattern: '^https?://[^/]',
        errorMessage: 'must be a URL such as http://127.0.0.1:4318',
        description: "The collector's OTLP/HTTP URL, e.g. `http://127.0.0.1:4318`; `/v1/traces` is added unless the URL ends with it.",
      }),
      service_name: text({ default: 'tollgate', description: 'The `service.name` of every span.' }),
      headers: headers({ description: "Sent with every export (a collector's or vendor's auth)." }),
      sample_ratio: Type.Number({
        minimum: 0,
        maximum: 1,
        default: 1,
        description: 'The share of requests traced when the client sent no `traceparent` (one that did decides for its trace).',
      }),
    },
    { description: 'OpenTelemetry traces over OTLP/HTTP; absent, nothing is traced.' },
  ),
)
  .Decode((telemetry) => {
    const endpoint = telemetry.otlp_endpoint.replace(/\/+$/, '')
    return {
      // The OTLP convention: a base URL gets the signal's path; a URL that names it already is used as it is.
      tracesUrl: endpoint.endsWith('/v1/traces') ? endpoint : `${endpoint}/v1/traces`,
      serviceName: telemetry.service_name,
      headers: telemetry.headers,
      sampleRatio: telemetry.sample_ratio,
    }
  })
  .Encode(readOnly)
