import { useEffect, useRef, useSyncExternalStore } from 'react'

/** The class of the element the page's address names: highlighted as `:target` is (styles.css). */
export const HASH_TARGET = 'hash-target'

const subscribe = (changed: () => void) => {
  window.addEventListener('hashchange', changed)
  return () => window.removeEventListener('hashchange', changed)
}

/** The element id the page's address names, decoded: "/replays/7#fp-1a2b" -> "fp-1a2b", "" for none.
 * Read from window.location (a router's navigation sets it before the page renders), followed on
 * `hashchange`. An evidence link (assessment/report.py) names a row this way: `#fp-<fingerprint_id>`
 * on a replay's page, `#check-<check id>` on a capture's. */
export function useHashId(): string {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash)
  try {
    return decodeURIComponent(hash.slice(1))
  } catch {
    return hash.slice(1) // a malformed escape: the id as written
  }
}

/** Scrolls the element with id `id` to the middle of the window (its top to the top when it is taller
 * than the window: a check's card, its headline first) the first time it is in the page
 * (the data that renders it arrives after the page opens, and a collapsed table opens first, so
 * the browser's own jump to the hash finds nothing); once per id, so a refetch or a re-render never
 * pulls a reader back. Call it in the component that renders the element: it looks after each of
 * that component's renders. */
export function useScrollToHash(id: string): void {
  const scrolled = useRef('')
  useEffect(() => {
    if (!id || scrolled.current === id) return
    const element = document.getElementById(id)
    if (!element) return
    scrolled.current = id
    element.scrollIntoView({ block: element.offsetHeight > window.innerHeight ? 'start' : 'center' })
  })
}
