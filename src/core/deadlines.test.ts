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
  const lastAdded = performance.now()
  lane.add(last)
  lane.remove(removed)
  lane.remove(removed) // a second removal does nothing
  await Bun.sleep(100)
  // Each measured from its own addition (within the lane's 1 ms tolerance): a timer that fires late on a busy
  // machine moves both expiries later, never earlier, so the gap between them is not what is asserted.
  expect(first.expiredAt! - started).toBeGreaterThanOrEqual(39)
  expect(removed.expiredAt).toBeUndefined()
  expect(last.expiredAt! - lastAdded).toBeGreaterThanOrEqual(39)
  expect(last.expiredAt!).toBeGreaterThan(first.expiredAt!)
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

test('an entry added with an earlier time expires then, before the entries already waiting, and moves the timer', async () => {
  const lane = new DeadlineLane(200)
  const started = performance.now()
  const usual = new Entry('usual')
  const sooner = new Entry('sooner')
  const later = new Entry('later')
  lane.add(usual)
  lane.add(sooner, started + 30) // a read's idle time cut to its request's total deadline
  lane.add(later, started + 10_000) // later than the lane's own length: the length wins
  await Bun.sleep(80)
  expect(sooner.expiredAt! - started).toBeGreaterThanOrEqual(29)
  expect(usual.expiredAt).toBeUndefined()
  await Bun.sleep(300)
  expect(usual.expiredAt! - started).toBeGreaterThanOrEqual(199)
  expect(later.expiredAt! - usual.expiredAt!).toBeLessThan(20)
})

test('an entry that adds itself again for a time the firing still counts as due is not expired again at once', async () => {
  // What a stream's idle watch does when the lane fires within its tolerance of the read's own deadline: it must
  // count the read as late rather than wait again for a moment already due (which spun until the clock caught up).
  const lane = new DeadlineLane(20)
  let expiries = 0
  const entry: Deadline = {
    dueAt: 0,
    lane: undefined,
    laneNext: undefined,
    lanePrevious: undefined,
    expire() {
      expiries++
      if (expiries < 1000) lane.add(entry, performance.now() + 0.5)
    },
  }
  lane.add(entry)
  await Bun.sleep(60)
  expect(expiries).toBeLessThan(1000)
})
