import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/**
 * The Claude Code CLI from npm (`@anthropic-ai/claude-code`). Its `bin/claude.exe` is a stub until the package's
 * postinstall copies the native binary over it, and `bun install` does not run that script, so the binary is taken
 * from the platform package the wrapper depends on; `missing` says why when neither is installed.
 */
export function findClaudeCode(): { path: string } | { missing: string } {
  const stub = join(import.meta.dir, '..', '..', 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe')
  if (existsSync(stub) && statSync(stub).size > 1_000_000) return { path: stub }
  const platformPackage = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`
  try {
    const binary = join(dirname(require.resolve(`${platformPackage}/package.json`)), process.platform === 'win32' ? 'claude.exe' : 'claude')
    if (existsSync(binary)) return { path: binary }
    return { missing: `${binary} does not exist` }
  } catch {
    return { missing: `neither ${stub} (postinstall not run) nor the platform package ${platformPackage} is installed` }
  }
}

export interface ClaudeRun {
  exitCode: number
  stdout: string
  stderr: string
}

/**
 * `claude -p <prompt>` against `baseUrl`, offline and non-interactive: a fresh HOME and config dir (no login, no
 * settings), telemetry, error reports and auto-update off, stdin closed, working in `workDir`.
 */
export async function runClaudeCode(
  binary: string,
  options: { baseUrl: string; apiKey: string; model: string; prompt: string; workDir: string },
): Promise<ClaudeRun> {
  const home = mkdtempSync(join(tmpdir(), 'tollgate-claude-home-'))
  mkdirSync(join(home, 'config'))
  try {
    const child = Bun.spawn([binary, '-p', options.prompt], {
      cwd: options.workDir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, 'config'),
        ANTHROPIC_BASE_URL: options.baseUrl,
        ANTHROPIC_API_KEY: options.apiKey,
        ANTHROPIC_MODEL: options.model,
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      // A guard against a CLI waiting forever for something (a prompt, the network), not a timing assertion.
      timeout: 90_000,
    })
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    return { exitCode, stdout, stderr }
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

export function makeWorkDir(files: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-claude-work-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, name), text)
  return directory
}
