"""A Playwright-side recorder of the run page's Server-Sent Events, so the production bundle carries no
test hooks: an init script wraps window.EventSource before the app loads.

window.__streamRecorder: {received: ["variant_index:iteration", ...] in arrival order (snapshot points,
then live iteration events, over every connection), connections, latenciesMs (Date.now() - the
event's published_at, worker to browser)}; window.__dropStream() closes the open connection and
fires its error event, as a connection the browser gave up on does, so the app reconnects itself."""

from typing import Any

RECORDER_JS = """
(() => {
  const Native = window.EventSource
  const open = []
  const log = { received: [], connections: 0, latenciesMs: [] }
  window.__streamRecorder = log
  class Recorded extends Native {
    constructor(url, init) {
      super(url, init)
      open.push(this)
      this.addEventListener('open', () => { log.connections += 1 })
      this.addEventListener('snapshot', (e) => {
        for (const [v, i] of JSON.parse(e.data).points) log.received.push(`${v}:${i}`)
      })
      this.addEventListener('iteration', (e) => {
        const d = JSON.parse(e.data)
        log.received.push(`${d.variant_index}:${d.iteration}`)
        log.latenciesMs.push(Date.now() - d.published_at * 1000)
      })
    }
  }
  window.EventSource = Recorded
  window.__dropStream = () => {
    for (const source of open.splice(0)) {
      if (source.readyState !== Native.CLOSED) {
        source.close()
        source.dispatchEvent(new Event('error'))
      }
    }
  }
})()
"""


def record_streams(context: Any) -> Any:
    """Install the recorder in every page of a Playwright BrowserContext; the context."""
    context.add_init_script(RECORDER_JS)
    return context


def stream_log(page: Any) -> dict[str, Any]:
    """The page's window.__streamRecorder (see the module docstring)."""
    log: dict[str, Any] = page.evaluate("() => window.__streamRecorder")
    return log
