/**
 * A JSON pointer into the document (`/models/2/price/output`, as TypeBox reports places) in the config's own
 * spelling: `models[2].price.output`. Whether a segment is a list index or a key is read from the document itself,
 * so a header named "0" stays a key. The empty pointer is the whole document, or the value `label` names.
 */
export function formatSettingPath(pointer: string, document: unknown, label = '(root)'): string {
  if (pointer === '') return label
  let path = label === '(root)' ? '' : label
  let value = document
  for (const escaped of pointer.slice(1).split('/')) {
    const segment = escaped.replaceAll('~1', '/').replaceAll('~0', '~')
    path += Array.isArray(value) ? `[${segment}]` : path === '' ? segment : `.${segment}`
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined
  }
  return path
}
