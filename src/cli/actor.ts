import { userInfo } from 'node:os'
import { type Actor, cliActor } from '../domain/actor.ts'

/** The OS user the CLI runs as; where the system has no entry for it (some containers), what the shell says. */
export function osUser(): string {
  try {
    return userInfo().username
  } catch {
    return process.env.USER ?? process.env.LOGNAME ?? `uid ${process.getuid?.() ?? '?'}`
  }
}

/** A change made with the CLI, named by the OS user who ran it (`cli:alice`). */
export function changeByCli(): Actor {
  return cliActor(osUser())
}
