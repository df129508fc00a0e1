import { render } from 'preact'
import './styles.css'
render(<p>hello</p>, document.getElementById('app')!)
