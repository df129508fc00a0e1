import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dir, '..', '..')
/** The compiled gateway, as `bun run build` makes it. */
export const binary = join(root, 'dist', 'tollgate')

/** The newest modification time among the files the binary is built from. */
function newestSourceMs(): number {
  let newest = 0
  for (const file of ['package.json', 'bun.lock', 'tsconfig.json']) newest = Math.max(newest, statSync(join(root, file)).mtimeMs)
  for (const entry of readdirSync(join(root, 'src'), { recursive: true })) {
    newest = Math.max(newest, statSync(join(root, 'src', String(entry))).mtimeMs)
  }
  return newest
}

/** Build dist/tollgate when it is missing or older than its sources (another test file may have built it in this run). */
export function ensureBinary(): string {
  if (!existsSync(binary) || statSync(binary).mtimeMs < newestSourceMs()) {
    const build = Bun.spawnSync(['bun', 'run', 'build'], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
    if (build.exitCode !== 0) throw new Error(`bun run build failed: ${build.stderr.toString()}`)
  }
  return binary
}
