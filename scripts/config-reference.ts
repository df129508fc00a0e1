/**
 * Writes README.md's configuration reference from the config schema (src/config/schema/): run it after changing a
 * setting, its default, bounds or description. src/config/reference.test.ts fails until it has been run.
 */
import { join } from 'node:path'
import { referenceEnd, referenceStart, renderConfigReference, replaceReference } from '../src/config/reference.ts'

const path = join(import.meta.dir, '..', 'README.md')
const readme = await Bun.file(path).text()
if (!readme.includes(referenceStart) || !readme.includes(referenceEnd)) {
  console.error(`README.md has no configuration reference markers:\n${referenceStart}\n${referenceEnd}`)
  process.exit(1)
}
const updated = replaceReference(readme, renderConfigReference())
await Bun.write(path, updated)
console.log(updated === readme ? 'README.md: the configuration reference was up to date' : 'README.md: configuration reference written')
