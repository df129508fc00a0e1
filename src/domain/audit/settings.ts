import type { Actor } from '../actor.ts'
import { auditEvent } from './note.ts'
import type { AuditEntry, AuditFields, AuditValue } from './records.ts'

/** Settings whose values are secrets (an upstream's key, the OIDC client secret, headers that may carry either). */
const secretName = /secret|password|api_?key|token|authorization|cookie|headers/i
/** `scheme://user:PASSWORD@host` (a database or Redis URL): the password never leaves. */
const withoutPassword = (text: string) => text.replace(/^([a-z][a-z\d+.-]*:\/\/[^:@/\s]*):[^@/\s]*@/i, '$1:***@')

interface Leaf {
  value: string
  secret: boolean
}

/** An entry of a list of named things (providers, models) is found by its name or id, not by its position. */
function entryName(entry: unknown, index: number): string {
  const named = entry as { name?: unknown; id?: unknown }
  return typeof named?.name === 'string' ? named.name : typeof named?.id === 'string' ? named.id : String(index)
}

/** Every setting as `path → its value as JSON`: nested sections by dots, named list entries by `[name]`. */
function flatten(value: unknown, path: string, secret: boolean, into: Map<string, Leaf>): Map<string, Leaf> {
  const isList = Array.isArray(value)
  if (isList && value.some((entry) => entry !== null && typeof entry === 'object')) {
    value.forEach((entry, index) => flatten(entry, `${path}[${entryName(entry, index)}]`, secret, into))
  } else if (!isList && value !== null && typeof value === 'object') {
    for (const [name, inner] of Object.entries(value))
      flatten(inner, path ? `${path}.${name}` : name, secret || secretName.test(name), into)
  } else if (value !== undefined) {
    into.set(path, { value: JSON.stringify(value), secret })
  }
  return into
}

/** What a row shows of a setting's value: a secret as "set", a URL without its password, a list of words as it is. */
function shown(leaf: Leaf): AuditValue {
  if (leaf.secret) return 'set'
  const value = JSON.parse(leaf.value) as unknown
  if (typeof value === 'string') return withoutPassword(value)
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return value as string[]
  return typeof value === 'number' || typeof value === 'boolean' || value === null ? value : leaf.value
}

/**
 * The settings a reload changed, before and after, by path (`providers[openai].timeouts.totalMs`,
 * `models[gpt-4o].price.input`): secrets appear as "set" before and "rotated" after, never as their values. The
 * config is compared as plain data, so this knows nothing of its shape but which names hold secrets.
 */
function changedSettings(before: object, after: object): { before: AuditFields; after: AuditFields } {
  const { source: _was, ...previous } = before as Record<string, unknown>
  const { source: _is, ...next } = after as Record<string, unknown>
  const old = flatten(previous, '', false, new Map())
  const now = flatten(next, '', false, new Map())
  const changed = { before: {} as AuditFields, after: {} as AuditFields }
  for (const path of new Set([...old.keys(), ...now.keys()])) {
    const [was, is] = [old.get(path), now.get(path)]
    if (was?.value === is?.value) continue
    if (was) changed.before[path] = shown(was)
    if (is) changed.after[path] = is.secret && was ? 'rotated' : shown(is)
  }
  return changed
}

/**
 * A config reload's row: who asked (`tollgate reload`'s OS user, or a signal from elsewhere), the file, the settings
 * it changed, and those that wait for a restart.
 */
export function configReloadEntry(
  actor: Actor,
  source: string,
  before: object,
  after: object,
  restartNeeded: string[],
  at: number,
): AuditEntry {
  const changed = changedSettings(before, after)
  const waiting: AuditFields = restartNeeded.length > 0 ? { restart_needed_for: restartNeeded } : {}
  return auditEvent(
    actor,
    'config.reload',
    { type: 'config', id: source, accountId: null },
    at,
    { ...changed.after, ...waiting },
    changed.before,
  )
}
