import { render } from 'preact'
import { checkSessionEarly, prefetchProjects } from './api'
import { App, preloadPage } from './app'
import { route } from './routes'

// The session's check and the projects page's first call (or the code of the page the address
// names) go out before the first render, side by side, not one after the other after it.
checkSessionEarly()
const opened = route(location.hash || '#/projects')
if (opened.page === 'projects') prefetchProjects()
else preloadPage(opened)

render(<App />, document.getElementById('app')!)
