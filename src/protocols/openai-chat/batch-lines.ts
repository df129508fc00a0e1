import { GatewayError } from '../../core/errors.ts'
import { Pacer } from '../../core/pace.ts'
import type { Services } from '../../edge/services.ts'
import { maxItems } from '../../edge/tasks.ts'
import type { Caller } from '../../relay/types.ts'
import { checkItem, CustomIds, itemInvalid } from '../shared/batch-item.ts'
import { exceedsDepth, isObject } from '../shared/validate.ts'
import { openAiBatchItems } from './batch-items.ts'

/**
 * An input file's requests, each line checked as its endpoint would check a live request before anything runs:
 * JSON no deeper than `limits.json_depth` and no longer than a live body (splitLines), a custom_id used once, the
 * batch's url, a body its endpoint's decoder accepts and a model the key may use — else a 400 naming the line.
 *
 * Every line counts toward the 50,000 (blank ones are skipped, but counted: 20 MiB of blank lines once took 4.3 s to
 * walk before its 400), and the work yields to the event loop every few ms (50,000 valid lines held it for 2.5 s).
 */
export async function readFileRequests(
  services: Services,
  caller: Caller,
  fileId: string,
  endpoint: string,
): Promise<{ customId: string; body: string }[]> {
  const target = { endpoint, model: null }
  const customIds = new CustomIds()
  const items: { customId: string; body: string }[] = []
  const { jsonDepth } = services.config.limits
  const pacer = new Pacer()
  for await (const { number, text: line } of services.tasks.fileLines(fileId)) {
    const where = `line ${number}`
    if (number > maxItems) {
      throw new GatewayError(
        'invalid_request',
        `${where}: a batch holds at most ${maxItems} requests (every line of the file counts, blank ones too).`,
        { code: 'too_many_requests', param: where },
      )
    }
    await pacer.pace()
    if (!line.trim()) continue
    const parsed = parseLine(line, where, jsonDepth)
    const customId = parsed.custom_id
    if (typeof customId !== 'string' || !customId) throw itemInvalid(where, new Error("'custom_id' must be a non-empty string."))
    customIds.add(customId, where)
    const named = `${where} (custom_id ${customId})`
    if (parsed.method !== 'POST') throw itemInvalid(named, new Error("'method' must be POST."))
    if (parsed.url !== endpoint)
      throw itemInvalid(named, new Error(`'url' is ${JSON.stringify(parsed.url)}, but this batch's endpoint is ${endpoint}.`))
    if (!isObject(parsed.body)) throw itemInvalid(named, new Error("'body' must be an object."))
    const itemBody = JSON.stringify(parsed.body)
    checkItem(services.relay, caller, openAiBatchItems, target, itemBody, named, parsed.body)
    items.push({ customId, body: itemBody })
  }
  return items
}

/** One line as a JSON object; nesting past `limits.json_depth` is refused before it is parsed, as a live body's is. */
function parseLine(line: string, where: string, jsonDepth: number): Record<string, unknown> {
  if (exceedsDepth(line, jsonDepth)) {
    throw new GatewayError(
      'invalid_request',
      `${where}: the request is nested too deeply: JSON arrays and objects may be nested at most ${jsonDepth} levels.`,
      { code: 'json_too_deep', param: where },
    )
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(line)
  } catch {
    throw itemInvalid(where, new Error('not valid JSON.'))
  }
  if (!isObject(parsed)) throw itemInvalid(where, new Error('expected a JSON object.'))
  return parsed
}
