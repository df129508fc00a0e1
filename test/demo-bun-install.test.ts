import { afterAll, expect, test } from 'bun:test'
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * `npm run demo` on a machine without Bun: it installs Bun with npm, showing npm's progress, and when that fails it
 * stops at once with npm's reason (a failed install once took 143 s to show, all output hidden). A user who may not
 * write npm's global folder (a system Node, not root) gets Bun in ~/.bun instead of a permissions error. The
 * registry here is a closed port, so the install fails the way a network failure would, without downloading.
 */
const root = resolve(import.meta.dir, '..')
const folder = mkdtempSync(join(tmpdir(), 'tollgate-demo-bun-'))
chmodSync(folder, 0o755)
afterAll(() => rmSync(folder, { recursive: true, force: true }))

/** A PATH with every tool of this machine but Bun. */
const bin = join(folder, 'bin')
mkdirSync(bin)
for (const directory of ['/usr/local/bin', '/usr/bin']) {
  for (const name of readdirSync(directory)) {
    if (name === 'bun' || name === 'bunx' || existsSync(join(bin, name))) continue
    symlinkSync(join(directory, name), join(bin, name))
  }
}
const clone = join(folder, 'clone')
mkdirSync(clone)
for (const entry of ['package.json', 'bun.lock', 'scripts']) cpSync(join(root, entry), join(clone, entry), { recursive: true })

async function runDemo(env: Record<string, string>, asUser?: number) {
  const home = mkdtempSync(join(folder, 'home-'))
  chmodSync(home, 0o777)
  const closed = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = closed.port
  closed.stop(true) // nothing listens there now: every fetch is refused
  const command =
    asUser === undefined
      ? ['sh', 'scripts/demo.sh']
      : ['setpriv', `--reuid=${asUser}`, `--regid=${asUser}`, '--clear-groups', 'sh', 'scripts/demo.sh']
  const started = performance.now()
  const child = Bun.spawn(command, {
    cwd: clone,
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: 'ignore',
    timeout: 120_000,
    env: { PATH: bin, HOME: home, npm_config_registry: `http://127.0.0.1:${port}/`, npm_config_cache: join(home, '.npm'), ...env },
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { stdout, stderr, code, seconds: (performance.now() - started) / 1000, home }
}

test('no Bun and the registry unreachable: npm run demo shows what it does and stops within seconds with the cause', async () => {
  const prefix = join(folder, 'global')
  mkdirSync(join(prefix, 'lib'), { recursive: true })
  mkdirSync(join(prefix, 'bin'), { recursive: true })
  const run = await runDemo({ npm_config_prefix: prefix })
  expect(run.code).toBe(1)
  expect(run.stdout).toContain(`Installing Bun with npm into ${prefix} (npm install -g bun)…`)
  expect(run.stderr).toContain('ECONNREFUSED') // npm's own reason, not hidden
  expect(run.stderr).toContain('npm run demo: installing Bun failed')
  expect(run.seconds).toBeLessThan(40)
}, 120_000)

test.skipIf(!Bun.which('setpriv'))(
  "a user who may not write npm's global folder gets Bun in ~/.bun, not a permissions error",
  async () => {
    const run = await runDemo({}, 65534)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`npm's global folder /usr is not writable by nobody: installing Bun into ${run.home}/.bun instead`)
    expect(run.stderr).not.toMatch(/EACCES|permission denied/i)
    expect(run.stderr).toContain('ECONNREFUSED')
    expect(run.seconds).toBeLessThan(40)
  },
  120_000,
)
