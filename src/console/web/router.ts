import { useEffect, useState } from 'preact/hooks'

/**
 * A tiny history router: paths under /console, no hash. Links update the URL with pushState and every
 * `useLocation` re-renders; the back button works because popstate does the same.
 */
const changeEvent = 'console:navigate'

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return
  if (options.replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  window.dispatchEvent(new Event(changeEvent))
}

export interface Place {
  path: string
  search: URLSearchParams
}

function currentPlace(): Place {
  return { path: location.pathname.replace(/\/+$/, '') || '/console', search: new URLSearchParams(location.search) }
}

export function useLocation(): Place {
  const [place, setPlace] = useState(currentPlace)
  useEffect(() => {
    const update = () => setPlace(currentPlace())
    window.addEventListener('popstate', update)
    window.addEventListener(changeEvent, update)
    return () => {
      window.removeEventListener('popstate', update)
      window.removeEventListener(changeEvent, update)
    }
  }, [])
  return place
}

/** Plain clicks on same-origin links navigate in place; modified clicks (new tab…) keep the browser's behaviour. */
export function interceptLinks(root: HTMLElement): () => void {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    const anchor = (event.target as Element).closest('a')
    // Downloads (CSV, task results) come from /console/api: the browser fetches those itself.
    if (
      !anchor ||
      anchor.target ||
      anchor.hasAttribute('download') ||
      anchor.origin !== location.origin ||
      !anchor.pathname.startsWith('/console') ||
      anchor.pathname.startsWith('/console/api/')
    )
      return
    event.preventDefault()
    navigate(anchor.pathname + anchor.search)
  }
  root.addEventListener('click', onClick)
  return () => root.removeEventListener('click', onClick)
}

/** `/console/keys/key_abc` matched against `/console/keys/:id` → `{ id: 'key_abc' }`, or undefined. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const expected = pattern.split('/')
  const actual = path.split('/')
  if (expected.length !== actual.length) return undefined
  const params: Record<string, string> = {}
  for (let index = 0; index < expected.length; index++) {
    const part = expected[index]!
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(actual[index]!)
    else if (part !== actual[index]) return undefined
  }
  return params
}
