// A page or component rendered inside React Router, for the front end's own tests: the same React as
// the app's (no stand-in for the router's hooks or links).
import type { ReactNode } from 'react'
import { MemoryRouter, Route, Routes } from 'react-router-dom'

/** `element` as the router shows it at `url`, matched by the route `path` (its params from the URL). */
export function atRoute(element: ReactNode, url = '/', path = '*') {
  return (
    <MemoryRouter initialEntries={[url]}>
      <Routes>
        <Route path={path} element={element} />
      </Routes>
    </MemoryRouter>
  )
}
