import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { makeWorkspace, runCli } from './support/cli.ts'

/**
 * What a newcomer reads when something is wrong: each message names the place, the value or the nearest right
 * word, and lists read alike (a header row, money with `$`).
 */
const root = resolve(import.meta.dir, '..')
const cli = ['bun', join(root, 'src', 'main.ts')]
const folders: string[] = []
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })))

/** The CLI run from a fresh folder (no tollgate.yaml, no examples/ beside it unless written). */
function runIn(files: Record<string, string>, args: string[]) {
  const folder = mkdtempSync(join(tmpdir(), 'tollgate-messages-'))
  folders.push(folder)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text)
  const result = Bun.spawnSync([...cli, ...args], {
    cwd: folder,
    env: { ...process.env, TOLLGATE_CONFIG: '' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString(), folder }
}

describe('config messages', () => {
  test('a YAML syntax error gives the line, the column and the offending line', () => {
    const yaml = 'listen:\n  host: 127.0.0.1\n   port: 8080\nproviders: [{ name: mock, type: mock }]\n'
    const result = runIn({ 'tollgate.yaml': yaml }, ['migrate'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'tollgate: tollgate.yaml: not valid YAML: Unexpected token at line 3, column 8\n     port: 8080\n         ^',
    )
  })

  test('a flow mapping left open names its line', () => {
    const result = runIn({ 'tollgate.yaml': 'listen: { host: 127.0.0.1, port: 8080\ndatabase: sqlite:./x.db\n' }, ['migrate'])
    expect(result.stderr).toContain('at line 1, column 9\n  listen: { host: 127.0.0.1, port: 8080')
  })

  test('listen.port: "80eighty" echoes the value given', () => {
    const result = runIn({ 'tollgate.yaml': 'listen: { port: "80eighty" }\nproviders: [{ name: mock, type: mock }]\n' }, ['migrate'])
    expect(result.stderr).toBe('tollgate: listen.port: must be a number ≥ 0, got "80eighty"\n')
  })

  test('"config file not found" for tollgate.yaml says to copy the example', () => {
    const bare = runIn({}, ['serve', '--config', 'tollgate.yaml'])
    expect(bare.code).toBe(2)
    expect(bare.stderr).toContain(
      'tollgate.yaml: config file not found (start from the example config, examples/tollgate.yaml in the Tollgate repository)',
    )
    const inClone = Bun.spawnSync([...cli, 'serve', '--config', 'no-such-dir/tollgate.yaml'], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
    expect(inClone.stderr.toString()).toContain(
      'config file not found (start from the example: cp examples/tollgate.yaml no-such-dir/tollgate.yaml)',
    )
  })

  test('--debug prints the error and its call frames, not the source around the throw', () => {
    const result = runIn({ 'tollgate.yaml': 'listen: [\n' }, ['migrate', '--debug'])
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines[0]).toStartWith('tollgate: tollgate.yaml: not valid YAML')
    expect(result.stderr).toContain('\nConfigError: tollgate.yaml: not valid YAML')
    expect(result.stderr).toMatch(/\n {2}at loadConfig \(.*load\.ts:\d+:\d+\)/)
    expect(result.stderr).not.toMatch(/^\s*\d+ \| /m) // Bun's source excerpt
  })
})

describe('command-line slips', () => {
  test('an unknown global flag is named with the nearest one, not answered with the whole help', () => {
    const result = runCli(cli, ['--versoin'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      'tollgate: unknown option --versoin; did you mean --version?\n`tollgate --help` lists the commands and options\n',
    )
  })

  test('an unknown command, subcommand or option suggests the nearest', () => {
    expect(runCli(cli, ['serv']).stderr).toStartWith('tollgate: unknown command "serv"; did you mean serve?\n')
    expect(runCli(cli, ['key', 'craete']).stderr).toStartWith('tollgate: unknown command "key craete"; did you mean key create?\n')
    const { config } = makeWorkspace()
    expect(runCli(cli, ['key', 'list', '--acount', 'x', '--config', config]).stderr).toStartWith(
      'tollgate: unknown option --acount for "key list"; did you mean --account?\n',
    )
    expect(runCli(cli, ['frobnicate']).stderr).toStartWith('tollgate: unknown command "frobnicate"\n')
  })

  test('tollgate user --help shows the user commands', () => {
    const result = runCli(cli, ['user', '--help'])
    expect(result.code).toBe(0)
    for (const usage of [
      'user create NAME (--role admin | --admin | --account ACCOUNT [--role account-admin|viewer])',
      'user list',
      'user delete NAME',
      'user password NAME',
    ]) {
      expect(result.stdout).toContain(`  tollgate ${usage}`)
    }
  })
})

describe('the operator CLI on a new database', () => {
  const { config } = makeWorkspace()
  const run = (...args: string[]) => runCli(cli, [...args, '--config', config])

  test('migrate says it created the database, then that it is up to date', () => {
    expect(run('migrate').stdout).toMatch(/^created a new database at sqlite:\S+tollgate\.db \(\d+ migrations applied\)\n$/)
    expect(run('migrate').stdout).toMatch(/^the database at sqlite:\S+tollgate\.db is up to date\n$/)
  })

  test('lists read alike: a header row and money with $', () => {
    run('account', 'create', 'acme', '--balance', '12.5')
    expect(run('account', 'list').stdout).toMatch(/^NAME\s+BALANCE\s+AVAILABLE\nacme\s+\$12\.50?\s+\$12\.50?\n$/)
    run('key', 'create', '--account', 'acme')
    const keys = run('key', 'list').stdout
    expect(keys).toMatch(/^ID\s+ACCOUNT\s+NAME\s+PREFIX/)
    expect(keys).toContain('PREFIX: the first characters of a key, kept to recognise it')
    expect(run('task', 'list').stdout).toBe('no tasks\n')
  })
})
