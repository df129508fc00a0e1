import { expect, test } from 'bun:test'
import { interpolateEnv } from './env.ts'
import { parseConfig } from './parse.ts'
import { referenceEnd, referenceStart, renderConfigReference, replaceReference } from './reference.ts'

const readme = await Bun.file(`${import.meta.dir}/../../README.md`).text()

test("the README's configuration reference is the one the schema writes (run `bun scripts/config-reference.ts`)", () => {
  expect(readme).toContain(referenceStart)
  expect(readme).toContain(referenceEnd)
  const section = (text: string) => text.slice(text.indexOf(referenceStart), text.indexOf(referenceEnd))
  expect(section(readme)).toBe(section(replaceReference(readme, renderConfigReference())))
})

test('the reference names every setting with its default, and marks the required ones', () => {
  const reference = renderConfigReference()
  expect(reference).toContain('| `port` | whole number from 0 to 65535 | `8080` |')
  expect(reference).toContain('| `price.input` | number ≥ 0 (USD per 1M tokens) | **required** (chat, embedding) |')
  expect(reference).toContain('| `price.output` | number ≥ 0 (USD per 1M tokens) | **required** (chat) |')
  expect(reference).toContain('| `upstream_body_bytes` | whole number ≥ 1 | `67108864` (64 MiB) |')
  expect(reference).toContain('| `level` | one of `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent` | `info` |')
  // A planted drift is seen: a reference one description away from the schema's is not the README's.
  const drifted = readme.replace('The least severe log lines written', 'The log lines written')
  expect(replaceReference(drifted, reference)).not.toBe(drifted)
})

test('every tollgate.yaml example in the README is a config the schema accepts', () => {
  const env = new Proxy({}, { get: () => 'from-the-environment' })
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => Bun.YAML.parse(match[1]!) as object)
  expect(blocks.length).toBeGreaterThanOrEqual(4)
  for (const block of blocks) {
    const document = { providers: [{ name: 'mock', type: 'mock' }], ...block }
    expect(() => parseConfig(interpolateEnv(document, env))).not.toThrow()
  }
})
