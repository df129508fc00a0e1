import { describe, expect, test } from 'bun:test'
import type { ChatRequest, Message, ToolChoice } from '../../core/ir.ts'
import { planMockAnswer } from './answer.ts'
import { pickTool } from './pick-tool.ts'

const tools = ['Agent', 'Bash', 'get_weather'].map((name) => ({
  name,
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
}))
const user = (...texts: string[]): Message => ({ role: 'user', content: texts.map((text) => ({ type: 'text' as const, text })) })

function request(last: Message, toolChoice?: ToolChoice): ChatRequest {
  return { model: 'mock-1', system: [], messages: [last], stream: false, tools, toolChoice }
}

const picked = (last: Message, toolChoice?: ToolChoice) => pickTool(request(last, toolChoice))?.name

describe('the mock calls a tool only when asked', () => {
  test('a message that asks for nothing gets text, whatever tools are offered', () => {
    expect(picked(user('say hi'))).toBeUndefined()
    expect(picked(user('weather in Paris?'))).toBeUndefined()
    expect(picked(user('because it is sunny, recall the caller'))).toBeUndefined() // "use" and "call" inside words
  })

  test('naming an offered tool calls that tool, whatever its place in the list', () => {
    expect(picked(user('what is the weather? try get_weather'))).toBe('get_weather')
    expect(picked(user('run it with bash please'))).toBe('Bash')
  })

  test('"use", "call" or "tool" without a name calls the first tool offered', () => {
    expect(picked(user('Use a tool, then say hi'))).toBe('Agent')
    expect(picked(user('call something'))).toBe('Agent')
  })

  test('tool_choice decides when it says more than auto', () => {
    expect(picked(user('say hi'), { type: 'required' })).toBe('Agent')
    expect(picked(user('say hi, with get_weather'), { type: 'required' })).toBe('get_weather')
    expect(picked(user('say hi'), { type: 'tool', name: 'Bash' })).toBe('Bash')
    expect(picked(user('use get_weather'), { type: 'none' })).toBeUndefined()
  })

  test('a tool result is answered in text, even when a tool is required', () => {
    const result: Message = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', content: 'use the tool again' }] }
    expect(picked(result, { type: 'required' })).toBeUndefined()
  })

  test("Claude Code's system reminders in the user turn are not the user asking, nor what the mock echoes", () => {
    const turn = user('<system-reminder>\nUse the Agent tool for searches; call Bash to run commands.\n</system-reminder>\n', 'say hi')
    expect(picked(turn)).toBeUndefined()
    expect(planMockAnswer(request(turn)).pieces.join('')).toBe('Hello from the Tollgate mock provider, you said: say hi')
  })
})
