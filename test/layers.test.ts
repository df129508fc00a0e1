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

interface Edge {
  file: string
  target: string
  typeOnly: boolean
}

function importsOf(file: string, text = readFileSync(file, 'utf8')): Edge[] {
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

/** A source file as the check reads it: its path under src/ and its text. */
interface SourceFile {
  path: string
  text: string
}

function* sourceFiles(): Iterable<SourceFile> {
  for (const path of new Glob('**/*.{ts,tsx}').scanSync({ cwd: src })) yield { path, text: readFileSync(join(src, path), 'utf8') }
}

function violations(files: Iterable<SourceFile> = sourceFiles()): string[] {
  const found: string[] = []
  for (const { path, text } of files) {
    // The composition root wires layers together; a test may reach across them to set up what it checks.
    if (compositionRoot.has(path) || path.endsWith('.test.ts')) continue
    const file = join(src, path)
    const from = layerOf(file)
    // The console's browser app is bundled on its own: it may import only itself.
    if (path.startsWith('console/web/')) {
      for (const edge of importsOf(file, text)) {
        if (!relative(src, edge.target).startsWith('console/web/')) found.push(`${path} → ${relative(src, edge.target)}`)
      }
      continue
    }
    const rule = allowed[from]
    if (!rule) {
      found.push(`${path}: the folder '${from}' has no rule in test/layers.test.ts`)
      continue
    }
    for (const edge of importsOf(file, text)) {
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

/**
 * Where every operation is run but none is named (issue 26): what differs between chat, embeddings and the
 * operations to come reaches these folders only through relay/types.ts `Operation` and core/provider.ts `Provider`.
 */
const operationAgnostic = ['relay', 'domain', 'db', 'edge', 'tasks', 'protocols/shared', 'providers/http.ts', 'providers/registry.ts']

/** An import of an operation's folder, or an operation's own types or names in the code (comments aside). */
function namesAnOperation(text: string): string | undefined {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
  return (
    /from '[^']*operations\/[^']*'/.exec(code)?.[0] ??
    /\b(?:Chat|Embedding)[A-Z]\w*|\b(?:chat|embeddings?)[A-Z]\w*|'(?:chat|embeddings?)'/.exec(code)?.[0]
  )
}

function namingViolations(): string[] {
  const found: string[] = []
  for (const path of new Glob('**/*.ts').scanSync({ cwd: src })) {
    if (path.endsWith('.test.ts') || !operationAgnostic.some((place) => path === place || path.startsWith(`${place}/`))) continue
    // The registry lists each operation's upstream sides: that is its one line per operation.
    const named = namesAnOperation(readFileSync(join(src, path), 'utf8'))
    if (named && !(path === 'providers/registry.ts' && /^(?:from '|chat|embeddings)/.test(named))) found.push(`${path}: ${named}`)
  }
  return found
}

describe('layers', () => {
  test('no file imports across a forbidden edge', () => {
    expect(violations()).toEqual([])
  })

  test('the check sees a forbidden edge (core importing a provider)', () => {
    const edges = importsOf(join(src, 'relay/run-attempts.ts'))
    expect(edges.length).toBeGreaterThan(0)
    expect(layerOf(join(src, 'providers/http.ts'))).toBe('providers')
    expect(allowed.core!.imports).not.toContain('providers')
  })

  test('the check catches planted violations, and lets the allowed edges through', () => {
    const planted: SourceFile[] = [
      { path: 'core/planted.ts', text: "import { fetchUpstream } from '../providers/http.ts'\n" },
      { path: 'domain/planted.ts', text: "import type { Config } from '../config/types.ts'\n" },
      { path: 'relay/planted.ts', text: "export { Relay } from './relay.ts'\nconst later = await import('../edge/respond.ts')\n" },
      { path: 'operations/embeddings/relay/planted.ts', text: "import { meterChat } from '../../chat/relay/meter.ts'\n" },
      { path: 'new-layer/planted.ts', text: '' },
      { path: 'console/web/planted.tsx', text: "import { GatewayError } from '../../core/errors.ts'\n" },
      // Allowed: relay may read the config's types, a test may reach anywhere, the composition root wires everything.
      {
        path: 'relay/allowed.ts',
        text: "import type { Config } from '../config/types.ts'\nimport { Ledger } from '../domain/ledger.ts'\n",
      },
      { path: 'core/allowed.test.ts', text: "import { Relay } from '../relay/relay.ts'\n" },
      { path: 'gateway.ts', text: "import { Relay } from './relay/relay.ts'\n" },
    ]
    expect(violations(planted)).toEqual([
      'core/planted.ts → providers/http.ts',
      'domain/planted.ts → config/types.ts',
      'relay/planted.ts → edge/respond.ts',
      "operations/embeddings/relay/planted.ts → operations/chat/relay/meter.ts: one operation's folder may not import another's",
      "new-layer/planted.ts: the folder 'new-layer' has no rule in test/layers.test.ts",
      'console/web/planted.tsx → core/errors.ts',
    ])
  })

  test("an operation's folder is split by layer, and each part follows its layer", () => {
    expect(layerOf(join(src, 'operations/chat/core/ir.ts'))).toBe('core')
    expect(layerOf(join(src, 'operations/chat/relay/operation.ts'))).toBe('relay')
    expect(layerOf(join(src, 'operations/chat/protocols/openai-chat/protocol.ts'))).toBe('protocols')
    expect(operationOf(join(src, 'operations/chat/providers/http.ts'))).toBe('chat')
  })

  test('the relay, holds, settlement, limits, routing, tracing, stores and batch runner name no operation', () => {
    expect(namingViolations()).toEqual([])
    // The check sees one: a relay file that imported chat's IR, or branched on an operation's name.
    expect(namesAnOperation("import type { ChatRequest } from '../operations/chat/core/ir.ts'")).toBeDefined()
    expect(namesAnOperation("if (call.operation.name === 'chat') return")).toBe("'chat'")
    expect(namesAnOperation('// a comment may say chat')).toBeUndefined()
  })
})
