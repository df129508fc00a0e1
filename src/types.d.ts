// SQL migrations are imported as text so they are embedded in the compiled binary.
declare module '*.sql' {
  const text: string
  export default text
}

// autocannon ships no types; the benchmark uses a few fields of its result.
declare module 'autocannon'
