import './docs.css'

/**
 * The API docs viewer at /docs: it reads the OpenAPI document the gateway serves at /docs/json and lays it out
 * as plain HTML. Bundled into the binary like the console (no CDN, nothing fetched from elsewhere), and built
 * with DOM calls and textContent only, so the strict Content-Security-Policy holds and no text from the
 * document is ever parsed as markup.
 */
interface Schema {
  type?: string
  format?: string
  description?: string
  const?: unknown
  enum?: unknown[]
  anyOf?: Schema[]
  items?: Schema
  properties?: Record<string, Schema>
  required?: string[]
  minimum?: number
  maximum?: number
  maxLength?: number
}

interface Parameter {
  name: string
  in: string
  required?: boolean
  schema?: Schema
}
interface Content {
  schema?: Schema
}
interface Operation {
  tags?: string[]
  summary?: string
  description?: string
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, Content> }
  responses?: Record<string, { description?: string; content?: Record<string, Content> }>
  /** Set on every signed-in route by its permission (console/server/access.ts): the README's role matrix, per route. */
  'x-permission'?: string
  'x-roles'?: string[]
}
interface OpenApiDocument {
  info: { title: string; description?: string; version: string }
  tags?: { name: string; description?: string }[]
  paths: Record<string, Record<string, Operation>>
}

type Child = Node | string | null | undefined | false

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value)
  for (const child of children) if (child) node.append(child)
  return node
}

/** "string | null", "array of integer", `"admin" | "account"`: a schema's type in one line. */
function typeOf(schema: Schema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ')
  if (schema.anyOf) return [...new Set(schema.anyOf.map(typeOf))].join(' | ')
  if (schema.type === 'array') return `array of ${schema.items ? typeOf(schema.items) : 'any'}`
  const limits = [
    schema.minimum !== undefined && `≥ ${schema.minimum}`,
    schema.maximum !== undefined && `≤ ${schema.maximum}`,
    schema.maxLength !== undefined && `≤ ${schema.maxLength} chars`,
  ].filter(Boolean)
  return `${schema.type ?? 'any'}${schema.format ? ` (${schema.format})` : ''}${limits.length ? `, ${limits.join(', ')}` : ''}`
}

/** The object schema a field holds, if any: directly, as the items of an array, or as a branch of a union. */
function objectWithin(schema: Schema): Schema | undefined {
  if (schema.properties) return schema
  if (schema.items) return objectWithin(schema.items)
  return schema.anyOf?.map(objectWithin).find(Boolean)
}

/** A table with a header cell over every column (an empty header once left "required" under a blank one). */
function table(headers: string[], rows: Node[]): Node {
  return element(
    'table',
    {},
    element('thead', {}, element('tr', {}, ...headers.map((title) => element('th', { scope: 'col' }, title)))),
    element('tbody', {}, ...rows),
  )
}

function schemaView(schema: Schema): Node {
  const object = objectWithin(schema)
  if (!object?.properties) return element('p', { class: 'type' }, typeOf(schema))
  const rows = Object.entries(object.properties).map(([name, field]) => {
    const nested = objectWithin(field)
    return element(
      'tr',
      {},
      element('td', {}, element('code', {}, name)),
      element('td', { class: 'type' }, typeOf(field)),
      element('td', {}, object.required?.includes(name) ? 'required' : 'optional'),
      element('td', {}, field.description ?? '', nested && element('details', {}, element('summary', {}, 'fields'), schemaView(nested))),
    )
  })
  return table(['Field', 'Type', 'Required', 'Description'], rows)
}

function operationView(method: string, path: string, operation: Operation): Node {
  const body = operation.requestBody?.content?.['application/json']?.schema
  const parameters = operation.parameters ?? []
  return element(
    'section',
    { class: 'operation', id: `${method}-${path}` },
    element('h3', {}, element('span', { class: `method ${method}` }, method.toUpperCase()), ' ', element('code', {}, path)),
    operation.summary && element('p', { class: 'summary' }, operation.summary),
    operation.description && element('p', {}, operation.description),
    operation['x-permission'] &&
      element(
        'p',
        { class: 'permission' },
        'Permission ',
        element('code', {}, operation['x-permission']),
        `: ${operation['x-roles']?.join(', ') || 'nobody'} (see the role matrix in the README).`,
      ),
    parameters.length > 0 && element('h4', {}, 'Parameters'),
    parameters.length > 0 &&
      table(
        ['Parameter', 'In', 'Type', 'Required', 'Description'],
        parameters.map((parameter) =>
          element(
            'tr',
            {},
            element('td', {}, element('code', {}, parameter.name)),
            element('td', {}, parameter.in),
            element('td', { class: 'type' }, parameter.schema ? typeOf(parameter.schema) : ''),
            element('td', {}, parameter.required ? 'required' : 'optional'),
            element('td', {}, parameter.schema?.description ?? ''),
          ),
        ),
      ),
    body && element('h4', {}, 'JSON body'),
    body && schemaView(body),
    element('h4', {}, 'Responses'),
    ...Object.entries(operation.responses ?? {}).map(([status, response]) => {
      const schema = response.content?.['application/json']?.schema
      return element(
        'details',
        { class: 'response' },
        element('summary', {}, element('code', {}, status), ' ', response.description ?? ''),
        schema && schemaView(schema),
      )
    }),
  )
}

function documentView(spec: OpenApiDocument): Node {
  const operations = Object.entries(spec.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  )
  const tags = spec.tags?.length
    ? spec.tags
    : [...new Set(operations.flatMap((entry) => entry.operation.tags ?? []))].map((name) => ({ name, description: undefined }))
  return element(
    'main',
    {},
    element('h1', {}, spec.info.title, ' ', element('small', {}, spec.info.version)),
    spec.info.description && element('p', {}, spec.info.description),
    element(
      'p',
      {},
      'The same document as JSON, for code generators and API clients: ',
      element('a', { href: '/docs/json' }, '/docs/json'),
      '.',
    ),
    element('nav', {}, element('ul', {}, ...tags.map((tag) => element('li', {}, element('a', { href: `#tag-${tag.name}` }, tag.name))))),
    ...tags.map((tag) =>
      element(
        'section',
        { id: `tag-${tag.name}` },
        element('h2', {}, tag.name),
        tag.description && element('p', {}, tag.description),
        ...operations
          .filter((entry) => entry.operation.tags?.includes(tag.name))
          .map((entry) => operationView(entry.method, entry.path, entry.operation)),
      ),
    ),
  )
}

const root = document.getElementById('docs')!
try {
  const response = await fetch('/docs/json', { headers: { accept: 'application/json' } })
  if (!response.ok) throw new Error(`the gateway answered ${response.status}`)
  root.replaceChildren(documentView((await response.json()) as OpenApiDocument))
} catch (error) {
  root.replaceChildren(element('p', { role: 'alert' }, `Could not load the API description: ${(error as Error).message}.`))
}
