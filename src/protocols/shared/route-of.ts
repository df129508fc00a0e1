/**
 * `POST /v1/messages`: what a log line says of where a request went. The path only, by string search rather than a
 * URL object: the query is left out because it may hold a key (Gemini's `?key=`).
 */
export function routeOf(request: Request): string {
  const url = request.url
  const start = url.indexOf('/', url.indexOf('//') + 2)
  const query = url.indexOf('?', start)
  return `${request.method} ${start === -1 ? '/' : url.slice(start, query === -1 ? undefined : query)}`
}
