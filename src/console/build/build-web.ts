/**
 * Bundles the console's front end (Preact, uPlot, our code and CSS) and the API docs viewer, and prints
 * `{ "app.js": …, "app.css": …, "docs.js": …, "docs.css": …, "icon.svg": … }` on stdout. Run as a child
 * process by the macro in bundle.ts, because Bun.build cannot be called from inside a macro.
 */
import { join } from 'node:path'

const web = join(import.meta.dir, '..', 'web')
// One build for both pages (it is run on every start from source, so it should be quick); each entry point
// gives `<entry>.js`, and `<entry>.css` for the stylesheets it imports. The console's entry is served as app.*.
const result = await Bun.build({
  entrypoints: [join(web, 'main.tsx'), join(web, 'docs', 'docs.ts')],
  target: 'browser',
  format: 'esm',
  minify: true,
  naming: { entry: '[name].[ext]', asset: '[name].[ext]' },
  define: { 'process.env.NODE_ENV': '"production"' },
})
if (!result.success) {
  console.error(result.logs.map(String).join('\n'))
  process.exit(1)
}
const files: Record<string, string> = { 'icon.svg': await Bun.file(join(web, 'icon.svg')).text() }
for (const output of result.outputs) files[output.path.replace(/^.*\//, '').replace(/^main\./, 'app.')] = await output.text()
process.stdout.write(JSON.stringify(files))
