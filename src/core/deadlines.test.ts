import { expect, test } from 'bun:test'
import { type Deadline, DeadlineLane, laneOf } from './deadlines.ts'

class Entry implements Deadline {
  dueAt = 0
  lane: DeadlineLane | undefined
  laneNext: Deadline | undefined
  lanePrevious: Deadline | undefined
  expiredAt: number | undefined

  constructor(readonly name: string) {}

  expire(): void {
    this.expiredAt = performance.now()
  }
}

test('each entry expires its length after it was added, in order; a removed one never does', async () => {
  const lane = new DeadlineLane(40)
  const started = performance.now()
  const first = new Entry('first')
  const removed = new Entry('removed')
  const last = new Entry('last')
  lane.add(first)
  lane.add(removed)
  await Bun.sleep(20)
  lane.add(last)
  lane.remove(removed)
  lane.remove(removed) // a second removal does nothing
  await Bun.sleep(100)
  expect(first.expiredAt! - started).toBeGreaterThanOrEqual(39)
  expect(removed.expiredAt).toBeUndefined()
  expect(last.expiredAt! - first.expiredAt!).toBeGreaterThanOrEqual(15)
  expect(first.lane).toBeUndefined()
})

test('an entry added again is watched from then on, and a lane emptied early still serves later entries', async () => {
  const lane = new DeadlineLane(30)
  const again = new Entry('again')
  lane.add(again)
  await Bun.sleep(15)
  const readded = performance.now()
  lane.add(again) // moved to the end, due 30 ms from now
  await Bun.sleep(60)
  expect(again.expiredAt! - readded).toBeGreaterThanOrEqual(29)
  const later = new Entry('later')
  lane.add(later)
  lane.remove(later)
  const next = new Entry('next')
  lane.add(next)
  await Bun.sleep(60)
  expect(later.expiredAt).toBeUndefined()
  expect(next.expiredAt).toBeDefined()
})

test('one lane per length, shared', () => {
  expect(laneOf(1234)).toBe(laneOf(1234))
  expect(laneOf(1234)).not.toBe(laneOf(1235))
})
