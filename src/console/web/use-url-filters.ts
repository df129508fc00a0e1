import { useEffect, useState } from 'preact/hooks'
import { queryString } from './api.ts'
import { dayAfter, isoDay } from './format.ts'
import { navigate } from './router.ts'

/**
 * A page's filters over a range of whole days, kept in the URL (bookmarkable, shareable, reached with the back
 * button): `applied` is what the URL says, `draft` what the form holds until it is applied. The range is the
 * last 30 days (UTC) unless the URL says otherwise.
 */
export function useUrlFilters<Name extends string>(search: URLSearchParams, names: readonly Name[], path: string) {
  type Filters = Record<Name | 'from' | 'to', string>
  const read = () =>
    ({
      ...Object.fromEntries(names.map((name) => [name, search.get(name) ?? ''])),
      from: search.get('from') ?? isoDay(29),
      to: search.get('to') ?? isoDay(0),
    }) as Filters
  const applied = read()
  const [draft, setDraft] = useState(applied)
  useEffect(() => setDraft(read()), [search.toString()])
  const set = (field: keyof Filters) => (value: string) => setDraft({ ...draft, [field]: value })
  const apply = (event: Event) => {
    event.preventDefault()
    navigate(`${path}${queryString(draft)}`)
  }
  return {
    applied,
    draft,
    setDraft,
    set,
    apply,
    range: { since: `${applied.from}T00:00:00Z`, until: dayAfter(applied.to) },
    invalidRange: draft.from > draft.to ? 'The start must not be after the end.' : undefined,
  }
}
