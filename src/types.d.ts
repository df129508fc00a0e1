// SQL migrations are imported as text so they are embedded in the compiled binary.
declare module '*.sql' {
  const text: string
  export default text
}
