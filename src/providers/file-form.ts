/**
 * A `multipart/form-data` request body whose file part is read from disk as it is sent, with its length declared:
 * `FormData` holding a `Bun.file` was measured to read the whole file into memory, three times over (a 60 MB file grew
 * the process's peak by 180 MB, 2026-11-27), where this grows it by what is in flight. A fresh body per attempt: a
 * stream is sent once.
 */
export interface FileForm {
  stream: ReadableStream<Uint8Array>
  contentType: string
  length: number
}

export interface FormFile {
  /** The form field's name (`file`). */
  field: string
  path: string
  filename: string
  contentType: string
  size: number
}

/** A name or filename as browsers quote it in Content-Disposition: a quote or a line break cannot end the header early. */
function quoted(text: string): string {
  return text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

const readBytes = 256 * 1024

/** The form's files, in order, each read from disk between its part's header and what follows it. */
export function fileForm(fields: readonly [string, string][], files: FormFile | readonly FormFile[]): FileForm {
  const boundary = `tollgate-${crypto.randomUUID()}`
  let text = ''
  for (const [name, value] of fields) text += `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`
  // The form as pieces: text between the files (their parts' headers, the line break that ends each), then each file.
  const pieces: ({ bytes: Buffer } | { file: FormFile })[] = []
  for (const file of Array.isArray(files) ? files : [files as FormFile]) {
    text +=
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.filename)}"\r\n` +
      `Content-Type: ${file.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`
    pieces.push({ bytes: Buffer.from(text) }, { file })
    text = '\r\n'
  }
  pieces.push({ bytes: Buffer.from(`${text}--${boundary}--\r\n`) })
  let piece = 0
  let offset = 0
  // Pulled a read at a time (highWaterMark 0), 256 KiB each: nothing is read from disk before the upstream's socket
  // takes what came before (the file's own stream() reads it in large pieces: 45 MB of a 60 MB upload stayed resident).
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (true) {
          const current = pieces[piece]
          if (current === undefined) return controller.close()
          if ('bytes' in current) {
            piece++
            return controller.enqueue(current.bytes)
          }
          const { file } = current
          if (offset < file.size) {
            const read = new Uint8Array(
              await Bun.file(file.path)
                .slice(offset, offset + readBytes)
                .arrayBuffer(),
            )
            // A file that shrank under us would otherwise be sent short of its declared length, forever waited on.
            if (read.length === 0) return controller.error(new Error(`The spooled upload ${file.path} ended early`))
            offset += read.length
            return controller.enqueue(read)
          }
          piece++
          offset = 0
        }
      },
    },
    { highWaterMark: 0 },
  )
  const length = pieces.reduce((sum, one) => sum + ('bytes' in one ? one.bytes.length : one.file.size), 0)
  return { stream, contentType: `multipart/form-data; boundary=${boundary}`, length }
}
