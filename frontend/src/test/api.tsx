// The API as the front end's own tests stand it in: a fetch answered from the test's table, and a
// component rendered over it with a fresh query cache.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, beforeEach, vi } from 'vitest'
import { FakeEventSource } from './fakeEventSource'

/** An answer to every request: `bodyOf(path)` as JSON (200), or a 404 `{detail}` when it is null. */
export function jsonAnswer(bodyOf: (path: string) => unknown, detail = 'not here') {
  return (request: Request): Response => {
    const body = bodyOf(new URL(request.url).pathname)
    return Response.json(body ?? { detail }, { status: body != null ? 200 : 404 })
  }
}

/** `element` under a fresh QueryClient (no retries), every fetch answered by `answer`. */
export function renderOverApi(element: ReactNode, answer: (request: Request) => Response) {
  vi.stubGlobal('fetch', vi.fn(async (request: Request) => answer(request)))
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  return render(<QueryClientProvider client={client}>{element}</QueryClientProvider>)
}

/** For a test file whose page follows a stream: every EventSource is a FakeEventSource (its
 * `opened` emptied before each test); after each, the DOM is cleaned, real timers and globals back. */
export function withFakeStreams() {
  beforeEach(() => {
    FakeEventSource.opened = []
    vi.stubGlobal('EventSource', FakeEventSource)
  })
  afterEach(() => {
    cleanup()
    vi.useRealTimers()
    vi.unstubAllGlobals()
  })
}
