import { describe, expect, test } from 'bun:test'
import { type Due, DueList } from './due-list.ts'

class Node implements Due {
  dueAt = 0
  dueBefore: Due | undefined = undefined
  dueAfter: Due | undefined = undefined
  constructor(
    readonly name: string,
    readonly fired: string[],
  ) {}
  due(): void {
    this.fired.push(this.name)
  }
}

describe('DueList', () => {
  test('runs each node once at its time, in time order, whatever order they were added in', async () => {
    const fired: string[] = []
    const list = new DueList()
    const now = performance.now()
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => new Node(name, fired))
    list.add(a!, now + 40)
    list.add(b!, now + 10) // sooner than the first: the timer is set again
    list.add(c!, now + 25) // between the two
    list.add(d!, now + 60)
    list.remove(d!)
    await Bun.sleep(15)
    expect(fired).toEqual(['b'])
    await Bun.sleep(60)
    expect(fired).toEqual(['b', 'c', 'a'])
    expect([a, b, c, d].map((node) => node!.dueAt)).toEqual([0, 0, 0, 0])
  })

  test('a node added again moves; one that adds itself from due() waits again', async () => {
    const fired: string[] = []
    const list = new DueList()
    const again = new Node('again', fired)
    let rounds = 0
    again.due = () => {
      fired.push('again')
      if (++rounds < 3) list.add(again, performance.now() + 5)
    }
    const moved = new Node('moved', fired)
    list.add(moved, performance.now() + 5)
    list.add(moved, performance.now() + 30)
    list.add(again, performance.now() + 5)
    await Bun.sleep(25)
    expect(fired).toEqual(['again', 'again', 'again'])
    await Bun.sleep(20)
    expect(fired).toEqual(['again', 'again', 'again', 'moved'])
  })

  test('a list left empty holds no timer: a process with nothing waiting can end', async () => {
    const list = new DueList()
    const node = new Node('gone', [])
    list.add(node, performance.now() + 60_000)
    list.remove(node)
    expect((list as unknown as { timer: unknown }).timer).toBeUndefined()
  })
})
