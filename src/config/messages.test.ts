import { expect, test } from 'bun:test'
import { parseConfig } from './load.ts'

/**
 * What an operator reads for each kind of mistake, now that a schema checks the config. `before` is what the
 * hand-written checks said (main at 1d5f174); `after` must be at least as useful: the same path, the expected form,
 * and the value given where it is short.
 */
const base = { providers: [{ name: 'mock', type: 'mock' }], models: [{ id: 'm', provider: 'mock', price: { input: 1, output: 2 } }] }
const withModel = (fields: object) => ({ ...base, models: [{ id: 'm', provider: 'mock', price: { input: 1, output: 2 }, ...fields }] })
const rootKeys =
  'listen, database, redis, trusted_proxies, providers, models, routing, log, shutdown, limits, tasks, admin, retention, ' +
  'ledger, webhooks, telemetry, auth'
const modelKeys =
  'id, kind, provider, upstream_model, routes, fallbacks, price, max_output_tokens, context_window, max_audio_seconds, owned_by, reasoning, allow, max_images'

const mistakes: { mistake: string; document: object; before: string; after: string }[] = [
  {
    mistake: 'a typo in a key',
    document: withModel({ upstream_modle: 'x' }),
    before: `models[0].upstream_modle: unknown setting (expected one of: ${modelKeys.replace('reasoning, allow', 'allow, reasoning')})`,
    after: `models[0].upstream_modle: unknown setting (expected one of: ${modelKeys})`,
  },
  {
    mistake: 'a typo that also leaves a required key out: the typo is named',
    document: withModel({ price: { input: 1, ouput: 2 } }),
    before:
      'models[0].price.ouput: unknown setting (expected one of: input, output, cached_input, cache_write, images, search_unit, characters, audio_minute, batch)',
    after:
      'models[0].price.ouput: unknown setting (expected one of: input, output, cached_input, cache_write, images, search_unit, characters, audio_minute, batch)',
  },
  {
    mistake: 'an unknown top-level key',
    document: { ...base, retension: { requests_days: 30 } },
    before: `(root).retension: unknown setting (expected one of: ${rootKeys})`,
    after: `retension: unknown setting (expected one of: ${rootKeys})`,
  },
  {
    mistake: 'text for a number',
    document: { ...base, listen: { port: '80eighty' } },
    before: 'listen.port: must be a number ≥ 0, got "80eighty"',
    after: 'listen.port: must be a number ≥ 0, got "80eighty"',
  },
  {
    mistake: 'a number out of range',
    document: { ...base, listen: { port: 99999 } },
    before: 'listen.port: must be a port number from 0 to 65535, got 99999',
    after: 'listen.port: must be a port number from 0 to 65535, got 99999',
  },
  {
    mistake: 'a fraction for a whole number',
    document: withModel({ max_output_tokens: 1.5 }),
    before: 'models[0].max_output_tokens: must be a whole number, got 1.5',
    after: 'models[0].max_output_tokens: must be a whole number ≥ 1, got 1.5',
  },
  {
    mistake: 'a word for a switch',
    document: { ...base, admin: { protect_metrics: 'yes' } },
    before: 'admin.protect_metrics: must be true or false',
    after: 'admin.protect_metrics: must be true or false, got "yes"',
  },
  {
    mistake: 'text for a list',
    document: withModel({ fallbacks: 'other' }),
    before: 'models[0].fallbacks: must be a list',
    after: 'models[0].fallbacks: must be a list, got "other"',
  },
  {
    mistake: 'a list for a section',
    document: { ...base, routing: [1] },
    before: 'routing: must be a mapping',
    after: 'routing: must be a mapping',
  },
  {
    mistake: 'a word not among the choices',
    document: { ...base, providers: [{ name: 'o', type: 'opneai' }] },
    before: 'providers[0].type: must be one of openai, anthropic, gemini, mock',
    after: 'providers[0].type: must be one of openai, anthropic, gemini, mock, got "opneai"',
  },
  {
    mistake: 'a log level not among the choices',
    document: { ...base, log: { level: 'loud' } },
    before: 'log.level: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    after: 'log.level: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
  },
  {
    mistake: 'a required price left out',
    document: withModel({ price: { input: 1 } }),
    before: 'models[0].price.output: is required (USD per 1M tokens)',
    after: 'models[0].price.output: is required (USD per 1M tokens)',
  },
  {
    mistake: 'a required name left out',
    document: { ...base, providers: [{ type: 'mock' }] },
    before: 'providers[0].name: is required',
    after: 'providers[0].name: is required',
  },
  {
    mistake: 'a negative price',
    document: withModel({ price: { input: 1, output: -2 } }),
    before: 'models[0].price.output: must not be negative',
    after: 'models[0].price.output: must be a number ≥ 0 (USD per 1M tokens), got -2',
  },
  {
    mistake: 'a price in words',
    document: withModel({ price: { input: 1, output: 'two' } }),
    before: 'models[0].price.output: "two" is not a dollar amount',
    after: 'models[0].price.output: must be a number ≥ 0 (USD per 1M tokens), got "two"',
  },
  {
    mistake: 'a price finer than a nano-dollar',
    document: withModel({ price: { input: 1, output: '0.0000000001' } }),
    before: 'models[0].price.output: "0.0000000001" has more than 9 decimals',
    after: 'models[0].price.output: "0.0000000001" has more than 9 decimals',
  },
  {
    mistake: 'a ratio out of range',
    document: { ...base, routing: { failure_ratio: 0 } },
    before: 'routing.failure_ratio: must be above 0 and at most 1',
    after: 'routing.failure_ratio: must be above 0 and at most 1, got 0',
  },
  {
    mistake: 'a blank name',
    document: { ...base, providers: [{ name: ' ', type: 'mock' }] },
    before: 'providers[0].name: must be a non-empty string',
    after: 'providers[0].name: must be a non-empty string, got " "',
  },
  {
    mistake: 'a URL of the wrong form',
    document: { ...base, providers: [{ name: 'o', type: 'openai', base_url: 'ftp://x' }] },
    before: 'providers[0].base_url: must start with http:// or https://',
    after: 'providers[0].base_url: must start with http:// or https://',
  },
  {
    mistake: 'a model naming no provider',
    document: { ...base, models: [{ id: 'm', price: { input: 1, output: 2 } }] },
    before: 'models[0].provider: is required',
    after: 'models[0].provider: is required (or give routes)',
  },
  {
    mistake: 'a name used twice',
    document: {
      ...base,
      providers: [
        { name: 'mock', type: 'mock' },
        { name: 'mock', type: 'mock' },
      ],
    },
    before: 'providers[1].name: "mock" is used twice',
    after: 'providers[1].name: "mock" is used twice',
  },
  {
    mistake: 'a fallback that is not a model',
    document: withModel({ fallbacks: ['other'] }),
    before: 'models[0].fallbacks: "other" is not a configured model',
    after: 'models[0].fallbacks: "other" is not a configured model',
  },
  {
    mistake: 'no providers at all',
    document: { models: [] },
    before: 'providers: at least one provider is required',
    after: 'providers: at least one provider is required',
  },
  { mistake: 'a document that is a list', document: [1, 2], before: '(root): must be a mapping', after: '(root): must be a mapping' },
]

for (const { mistake, document, before, after } of mistakes) {
  test(`${mistake}: ${after}`, () => {
    expect(() => parseConfig(document)).toThrow(after)
    // Never less than before: the same setting is named (the root's keys no longer carry a "(root)." prefix).
    const field = (message: string) => message.slice(0, message.indexOf(': ')).replace(/^\(root\)\./, '')
    expect(field(after)).toBe(field(before))
  })
}

test('text from ${ENV} counts as the number or switch it spells; nothing else is converted', () => {
  const spelt = { listen: { port: '8081' }, admin: { protect_metrics: 'true' }, routing: { failure_ratio: ' 0.25 ' } }
  const config = parseConfig({ ...base, ...spelt })
  expect([config.listen.port, config.admin.protectMetrics, config.routing.failureRatio]).toEqual([8081, true, 0.25])
  expect(() => parseConfig({ ...base, admin: { protect_metrics: 1 } })).toThrow('admin.protect_metrics: must be true or false, got 1')
  expect(() => parseConfig({ ...base, routing: { max_attempts: '2.5' } })).toThrow(
    'routing.max_attempts: must be a whole number ≥ 1, got 2.5',
  )
})

test("an empty section or setting takes its defaults, and the caller's document is left as it was", () => {
  const document = { ...base, listen: null, routing: { max_attempts: null } }
  const snapshot = structuredClone(document)
  const config = parseConfig(document)
  expect([config.listen.port, config.routing.maxAttempts]).toEqual([8080, 3])
  expect(document).toEqual(snapshot)
})

test('the config is frozen all the way down', () => {
  const config = parseConfig(base)
  expect(Object.isFrozen(config)).toBe(true)
  expect(Object.isFrozen(config.models[0]!.routes[0])).toBe(true)
  expect(Object.isFrozen(config.providers[0]!.caps)).toBe(true)
  expect(() => {
    ;(config.routing as { maxAttempts: number }).maxAttempts = 9
  }).toThrow()
})
