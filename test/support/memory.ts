import { readFileSync } from 'node:fs'

/** Resident and peak resident memory (VmRSS, VmHWM) of a process, in MB: how upload tests see what a body costs. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)![1]) / 1024
  return { rss: field('VmRSS'), peak: field('VmHWM') }
}
