import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { Glob } from 'bun'

/**
 * The layers of src/ (README "Layout"): which folder may import which. An inner layer owns the contracts an outer
 * one implements (core owns Provider, domain owns the repositories), so dependencies point inward only.
 * `config` as a type-only import is allowed where the config's shape is needed but nothing of its loading.
 */
const allowed: Record<string, { imports: string[]; configTypes?: boolean }> = {
  core: { imports: ['core'], configTypes: true },
  wire: { imports: ['core'] },
  domain: { imports: ['core'] },
  config: { imports: ['core'] },
  providers: { imports: ['core', 'wire', 'config'] },
  relay: { imports: ['core', 'domain'], configTypes: true },
  edge: { imports: ['core', 'domain', 'relay'], configTypes: true },
  protocols: { imports: ['core', 'wire', 'relay', 'edge'], configTypes: true },
  db: { imports: ['domain', 'core'], configTypes: true },
  console: { imports: ['core', 'domain', 'relay', 'edge'], configTypes: true },
  cli: { imports: ['core', 'domain', 'relay', 'edge', 'config'] },
  tasks: { imports: ['core', 'domain', 'relay', 'edge', 'protocols'], configTypes: true },
}
/** The composition root may import anything: it is where the layers are wired together. */
const compositionRoot = new Set(['main.ts', 'gateway.ts', 'app.ts', 'types.d.ts', 'cli/serve.ts'])

const src = resolve(import.meta.dir, '../src')
const importPattern = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'|import\('([^']+)'\)/gm

interface Edge { file: string; target: string; typeOnly: boolean }

function importsOf(file: string): Edge[] {
  const text = readFileSync(file, 'utf8')
  const edges: Edge[] = []
  for (const match of text.matchAll(importPattern)) {
    const specifier = match[3] ?? match[4] ?? match[5]!
    if (!specifier.startsWith('.')) continue
    edges.push({ file, target: resolve(dirname(file), specifier), typeOnly: match[2] !== undefined })
  }
  return edges
}

/**
 * An operation (chat, embeddings…) keeps everything of its own in one folder, operations/<name>/, with one part per
 * layer it reaches: operations/<name>/core is core, …/relay is relay, …/providers and …/protocols likewise. Each part
 * follows its layer's rule, so an operation's folder never lets an inner layer reach an outer one.
 */
function layerOf(path: string): string {
  const parts = relative(src, path).split('/')
  if (parts[0] === 'operations') return parts.length > 3 ? parts[2]! : `operations/${parts[1]}/${parts[2]}`
  return parts.length > 1 ? parts[0]! : parts[0]!
}

/** The operation a file belongs to (its folder under operations/), if any. */
function operationOf(path: string): string | undefined {
  const parts = relative(src, path).split('/')
  return parts[0] === 'operations' ? parts[1] : undefined
}

function violations(): string[] {
  const found: string[] = []
  for (const path of new Glob('**/*.{ts,tsx}').scanSync({ cwd: src })) {
    // The composition root wires layers together; a test may reach across them to set up what it checks.
    if (compositionRoot.has(path) || path.endsWith('.test.ts')) continue
    const file = join(src, path)
    const from = layerOf(file)
    // The console's browser app is bundled on its own: it may import only itself.
    if (path.startsWith('console/web/')) {
      for (const edge of importsOf(file)) {
        if (!relative(src, edge.target).startsWith('console/web/')) found.push(`${path} → ${relative(src, edge.target)}`)
      }
      continue
    }
    const rule = allowed[from]
    if (!rule) {
      found.push(`${path}: the folder '${from}' has no rule in test/layers.test.ts`)
      continue
    }
    for (const edge of importsOf(file)) {
      if (relative(src, edge.target).startsWith('..')) continue // embedded files (migrations' SQL), not code
      // Operations are independent of one another: what two share belongs to a layer, not to either of them.
      const operation = operationOf(edge.target)
      if (operation && operationOf(file) && operation !== operationOf(file)) {
        found.push(`${path} → ${relative(src, edge.target)}: one operation's folder may not import another's`)
        continue
      }
      const to = layerOf(edge.target)
      if (to === from || rule.imports.includes(to)) continue
      if (to === 'config' && rule.configTypes && edge.typeOnly && relative(src, edge.target) === 'config/types.ts') continue
      if (to === 'console' && path.startsWith('console/')) continue
      found.push(`${path} → ${relative(src, edge.target)}`)
    }
  }
  return found
}

describe('layers', () => {
  test('no file imports across a forbidden edge', () => {
    expect(violations()).toEqual([])
  })

  test('the check sees a forbidden edge (core importing a provider)', () => {
    const edges = importsOf(join(src, 'relay/open-attempt.ts'))
    expect(edges.length).toBeGreaterThan(0)
    expect(layerOf(join(src, 'providers/http.ts'))).toBe('providers')
    expect(allowed.core!.imports).not.toContain('providers')
  })
})
