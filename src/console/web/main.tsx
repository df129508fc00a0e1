import { render } from 'preact'
import { App } from './app.tsx'
import './styles.css'

const root = document.getElementById('app')!
// The server's "Loading…" placeholder is plain markup, not something Preact rendered: clear it first.
root.replaceChildren()
render(<App />, root)
