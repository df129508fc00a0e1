import type { Config, ModelConfig } from '../config/types.ts'
import type { Hold, KeyRecord } from '../db/records.ts'
import { keyAllowsModel } from '../domain/keys.ts'
import type { Ledger } from '../domain/ledger.ts'
import type { ForwardRequest, Provider, Target } from '../providers/types.ts'
import { GatewayError, toGatewayError } from './errors.ts'
import type { ChatRequest, ChatResponse, StreamEvent, Usage } from './ir.ts'
import type { Logger } from './logger.ts'
import { Meter } from './meter.ts'
import { costOf, worstCaseCost } from './pricing.ts'
import { orderRoutes } from './routing.ts'
import { meterRawStream } from './raw-stream.ts'
import type { SseEvent } from './sse.ts'

export interface RelayDeps {
  config: Config
  providers: Map<string, Provider>
  ledger: Ledger
  logger: Logger
}

/** One client request, already authenticated and decoded by its protocol. */
export interface RelayCall {
  key: KeyRecord
  /** The client protocol's name (`openai-chat`, …): recorded, and compared with a provider's for passthrough. */
  protocol: string
  requestId: string
  request: ChatRequest
  /** An upper bound on the prompt's tokens (its byte length), for the hold. */
  inputBound: number
  /** Aborts when the client goes away. */
  signal: AbortSignal
  /** Offered by a protocol that can forward its own wire format untouched to a provider that speaks it. */
  forward?: (target: Target) => ForwardRequest
  /** Passthrough streams: drop these events instead of forwarding them (usage the client did not ask for). */
  dropRawEvent?: (event: SseEvent) => boolean
  /** Passthrough streams: how this protocol writes an error event when the upstream fails mid-stream. */
  encodeRawError?: (error: GatewayError) => string
}

export type RelayResult =
  | { kind: 'response'; response: ChatResponse; target: Target }
  | { kind: 'stream'; events: AsyncIterable<StreamEvent>; target: Target }
  | { kind: 'raw'; body: string; target: Target }
  | { kind: 'raw-stream'; body: ReadableStream<Uint8Array>; target: Target }

/** How a request ended, for its usage row. */
export interface Outcome {
  status: number
  usage?: Usage
  errorType?: string
}

export class Relay {
  private readonly models: Map<string, ModelConfig>

  constructor(private readonly deps: RelayDeps) {
    this.models = new Map(deps.config.models.map((model) => [model.id, model]))
  }

  /** The models a key may call, in config order. */
  modelsFor(key: KeyRecord): ModelConfig[] {
    return this.deps.config.models.filter((model) => keyAllowsModel(key, model.id))
  }

  resolveModel(key: KeyRecord, modelId: string): ModelConfig {
    const model = this.models.get(modelId)
    if (!model) throw new GatewayError('not_found', `The model '${modelId}' does not exist`, { code: 'model_not_found', param: 'model' })
    if (!keyAllowsModel(key, modelId)) {
      throw new GatewayError('permission', `This API key is not permitted to use the model '${modelId}'`, { code: 'model_not_permitted', param: 'model' })
    }
    return model
  }

  async run(call: RelayCall): Promise<RelayResult> {
    const model = this.resolveModel(call.key, call.request.model)
    const request = { ...call.request, maxOutputTokens: Math.min(call.request.maxOutputTokens ?? model.maxOutputTokens, model.maxOutputTokens) }
    const inputBound = model.contextWindow ? Math.min(call.inputBound, model.contextWindow) : call.inputBound
    const hold = await this.deps.ledger.placeHold(call.key.accountId, call.key.id, worstCaseCost(inputBound, request.maxOutputTokens, model.price))
    const started = performance.now()
    const targets = orderRoutes(model, this.deps.providers)
    const target = targets[0]
    if (!target) {
      this.finish(call, hold, model, undefined, started, { status: 503, errorType: 'upstream_unavailable' })
      throw new GatewayError('upstream_unavailable', `No route is available for the model '${model.id}'`)
    }
    const upstream = new AbortController()
    const signal = AbortSignal.any([call.signal, upstream.signal])
    const provider = this.deps.providers.get(target.provider.name)!
    const settle = (outcome: Outcome) => this.finish(call, hold, model, target, started, outcome)
    const meter = new Meter()
    try {
      const canForward = call.forward && provider.forward && provider.config.passthrough && provider.nativeProtocol === call.protocol
      if (canForward) {
        const response = await provider.forward!(call.forward!(target), target, signal)
        if (!request.stream) {
          const body = await response.text()
          meter.observeResponse(provider.decodeResponse!(parseJson(body)))
          settle({ status: 200, usage: await meter.usage(request) })
          return { kind: 'raw', body, target }
        }
        const body = meterRawStream(response.body!, provider, meter, upstream, call, async (outcome) => {
          settle({ ...outcome, usage: outcome.status === 200 || outcome.status === 499 ? await meter.usage(request) : undefined })
        })
        return { kind: 'raw-stream', body, target }
      }
      if (!request.stream) {
        const response = await provider.complete(request, target, signal)
        meter.observeResponse(response)
        settle({ status: 200, usage: await meter.usage(request) })
        return { kind: 'response', response, target }
      }
      const events = await provider.stream(request, target, signal)
      return { kind: 'stream', events: this.meterStream(events, request, meter, upstream, settle), target }
    } catch (error) {
      const failure = call.signal.aborted
        ? new GatewayError('upstream', 'Client closed the request', { code: 'client_closed', status: 499 })
        : toGatewayError(error)
      const usage = failure.status === 499 ? await meter.usage(request) : undefined
      settle({ status: failure.status, errorType: failure.code ?? failure.kind, usage })
      throw failure
    }
  }

  /** Pass IR events through while metering them; settles exactly once however the stream ends. */
  private async *meterStream(events: AsyncIterable<StreamEvent>, request: ChatRequest, meter: Meter, upstream: AbortController, settle: (outcome: Outcome) => void): AsyncGenerator<StreamEvent> {
    let outcome: Outcome = { status: 499, errorType: 'client_closed' }
    try {
      for await (const event of events) {
        meter.observe(event)
        if (event.type === 'error') {
          outcome = { status: event.error.status, errorType: event.error.code ?? event.error.kind }
          yield event
          return
        }
        yield event
      }
      outcome = { status: 200 }
    } catch (error) {
      const failure = toGatewayError(error)
      if (failure.status !== 499) {
        outcome = { status: failure.status, errorType: failure.code ?? failure.kind }
        yield { type: 'error', error: failure }
      }
    } finally {
      upstream.abort()
      const billable = outcome.status === 200 || outcome.status === 499
      settle({ ...outcome, usage: billable ? await meter.usage(request) : undefined })
    }
  }

  private finish(call: RelayCall, hold: Hold, model: ModelConfig, target: Target | undefined, started: number, outcome: Outcome): void {
    const usage = outcome.usage
    const cost = usage ? costOf(usage, model.price) : 0
    const latencyMs = Math.round(performance.now() - started)
    this.deps.ledger.settle(hold, {
      requestId: call.requestId,
      accountId: call.key.accountId,
      keyId: call.key.id,
      model: model.id,
      provider: target?.provider.name ?? '',
      upstreamModel: target?.upstreamModel ?? '',
      protocol: call.protocol,
      inputTokens: usage?.inputTokens ?? 0,
      cachedInputTokens: usage?.cachedInputTokens ?? 0,
      cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      reasoningTokens: usage?.reasoningTokens ?? 0,
      cost,
      status: outcome.status,
      errorType: outcome.errorType ?? null,
      latencyMs,
      stream: call.request.stream,
      estimated: usage?.estimated ?? false,
      createdAt: Date.now(),
    })
    this.deps.logger.info({
      request_id: call.requestId, key: call.key.id, model: model.id, provider: target?.provider.name, status: outcome.status,
      error: outcome.errorType, latency_ms: latencyMs, input_tokens: usage?.inputTokens, output_tokens: usage?.outputTokens, cost,
      stream: call.request.stream,
    }, 'request')
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new GatewayError('upstream', 'Upstream sent a response that is not JSON')
  }
}
