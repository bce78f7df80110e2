import { render } from 'preact'
import { checkSessionEarly, prefetchProjects } from './api'
import { App } from './app'
import { route } from './routes'

// The session's check and the projects page's first call go out before the first render, side by
// side, not one after the other after it.
checkSessionEarly()
if (route(location.hash || '#/projects').page === 'projects') prefetchProjects()

render(<App />, document.getElementById('app')!)
