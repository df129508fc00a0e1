/**
 * Exports nothing else uses: `bun scripts/dead-exports.ts` lists each exported declaration of src/ whose name appears
 * in no other file of src/, test/, bench/ or scripts/ (a word match: generous, so what it lists is surely unused
 * outside its file). Each is either dead (unused in its own file too: remove it) or only needs its `export` dropped.
 * A type or interface its own file uses stays exported: it names an exported function's parameters or result.
 * Exits 1 when it lists any, so it can guard a tree that is clean. `--fix` drops the exports that are used in their own
 * file (what is unused everywhere is left to a person: removing code is a decision).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Glob } from 'bun'

const root = resolve(import.meta.dir, '..')
const declaration =
  /^export\s+(?:default\s+)?(?:declare\s+)?(?:async\s+)?(function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm

/** What the browser app and the compiled binary load by path, not by import: their exports are used from outside. */
const entryPoints = new Set(['src/main.ts', 'src/db/sqlite/checkpoint-worker.ts'])

const files = new Map<string, string>()
for (const folder of ['src', 'test', 'bench', 'scripts']) {
  for (const path of new Glob('**/*.{ts,tsx}').scanSync({ cwd: join(root, folder) }))
    files.set(`${folder}/${path}`, readFileSync(join(root, folder, path), 'utf8'))
}

const fix = process.argv.includes('--fix')
const found: string[] = []
for (const [path, text] of files) {
  if (!path.startsWith('src/') || path.endsWith('.test.ts') || entryPoints.has(path)) continue
  for (const match of text.matchAll(declaration)) {
    const [, kind, name] = match as unknown as [string, string, string]
    const word = new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`, 'g')
    const elsewhere = [...files].some(([other, otherText]) => other !== path && word.test(otherText))
    if (elsewhere) continue
    const own = text.match(word)?.length ?? 0
    if (own > 1 && (kind === 'interface' || kind === 'type')) continue
    if (fix && own > 1) {
      writeFileSync(join(root, path), readFileSync(join(root, path), 'utf8').replace(match[0], match[0].replace(/^export\s+/, '')))
      continue
    }
    found.push(`${path}: ${name}${own > 1 ? ' (used in its own file only: drop the export)' : ' (unused: remove it)'}`)
  }
}
for (const line of found) console.log(line)
console.log(`${found.length} export(s) nothing else imports`)
process.exit(found.length > 0 ? 1 : 0)
