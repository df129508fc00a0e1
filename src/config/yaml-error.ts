/**
 * Where a YAML document stops parsing. Bun's parser says only "Unexpected token", with no position, so the place is
 * found by parsing ever longer beginnings of the file: the line after the longest beginning that still parses is the
 * offending one (a list in brackets or a quoted string that goes on to the next line makes the lines before it fail
 * alone, so the first failing beginning is not it), and the same search over that line's characters gives the column.
 * Only run on a file that already failed, and config files are short, so the repeated parsing costs nothing that
 * matters.
 */
export interface YamlErrorPlace {
  /** 1-based. */
  line: number
  /** 1-based. */
  column: number
  text: string
}

function parses(text: string): boolean {
  try {
    Bun.YAML.parse(text)
    return true
  } catch {
    return false
  }
}

/** Undefined when the whole text parses. */
export function locateYamlError(text: string): YamlErrorPlace | undefined {
  if (parses(text)) return undefined
  const lines = text.split(/\r?\n/)
  let index = lines.length - 1
  while (index > 0 && !parses(lines.slice(0, index).join('\n'))) index--
  // lines[0..index) parse; lines[index] is where it breaks (or the file breaks without any line parsing on its own).
  const before = index > 0 ? `${lines.slice(0, index).join('\n')}\n` : ''
  const line = lines[index]!
  let parsed = 0
  for (let end = 1; end <= line.length; end++) if (parses(before + line.slice(0, end))) parsed = end
  return { line: index + 1, column: Math.min(parsed + 1, Math.max(line.length, 1)), text: line }
}

/** "line 3, column 4:" and the line itself under it with a caret at the column, for an error message. */
export function describeYamlErrorPlace(place: YamlErrorPlace): string {
  const shown = place.text.replaceAll('\t', ' ')
  return `line ${place.line}, column ${place.column}\n  ${shown}\n  ${' '.repeat(place.column - 1)}^`
}
