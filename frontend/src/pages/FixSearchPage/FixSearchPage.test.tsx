import { act, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { FixSearchRead } from '../../client'
import { renderOverApi, withFakeStreams } from '../../test/api'
import { FakeEventSource } from '../../test/fakeEventSource'
import { atRoute } from '../../test/router'
import { FixSearchPage } from './FixSearchPage'
import { fixCandidate, fixResult, fixSearch, fixTrial } from '../../test/fixSearches'

const progress = (tried: number, message: string) => ({ phase: 'measuring', tried, rounds_done: tried * 5, minutes: 0.1, message })

// A search measuring its first of two candidates, as GET /api/fixsearches/7 answers it.
const RUNNING = fixSearch({ candidates: [fixCandidate('a=on'), fixCandidate('b=on')], progress: progress(0, '2 candidates') })
const FIRST_TRIED = fixSearch({
  ...RUNNING,
  tried: [fixTrial('a=on', 'does not restore', { results_equal: true, rounds: 5 })],
  progress: progress(1, 'a=on: does not restore'),
})

let answer: FixSearchRead = RUNNING
const gets = vi.fn()

function respond(request: Request): Response {
  const path = new URL(request.url).pathname
  if (path === '/api/auth/me') return Response.json({ username: 'ada', role: 'operator' })
  if (path === '/api/fixsearches/7') {
    gets()
    return Response.json(answer)
  }
  return Response.json({ detail: 'not found' }, { status: 404 })
}

withFakeStreams()
beforeEach(() => {
  answer = RUNNING
  gets.mockClear()
})

describe('FixSearchPage', () => {
  it('follows the search over its stream: progress in place, a new trial refetched, the end shown', async () => {
    const view = renderOverApi(atRoute(<FixSearchPage />, '/fixsearches/7', '/fixsearches/:id'), respond)
    await waitFor(() => expect(view.getByTestId('fix-status').textContent).toBe('running'))
    expect(view.getByTestId('fix-progress').textContent).toContain('0 of 2 candidates tried')
    expect(view.getByTestId('fix-cancel')).toBeTruthy()
    const [source] = FakeEventSource.opened
    expect(source.url).toBe('/api/fixsearches/7/events')
    act(() => {
      source.connect()
      source.emit('snapshot', '1-0', { status: 'running', progress: RUNNING.progress })
    })
    expect(gets).toHaveBeenCalledTimes(1) // the snapshot says what the page holds: nothing asked

    // the worker measured the first candidate: the event brings its progress, the GET its trial
    answer = FIRST_TRIED
    act(() => source.emit('status', '2-0', { progress: FIRST_TRIED.progress }))
    await waitFor(() => expect(view.getAllByTestId('fix-candidate')[0].dataset.state).toBe('does not restore'))
    expect(view.getByTestId('fix-progress').textContent).toContain('1 of 2 candidates tried')
    expect(gets).toHaveBeenCalledTimes(2)

    answer = {
      ...FIRST_TRIED,
      status: 'succeeded',
      progress: { ...progress(1, 'out of budget'), phase: 'done' },
      result: fixResult('out of budget', { tried: 1, not_tried: ['b=on'], rounds: 5, minutes: 0.1 }),
    }
    act(() => source.emit('status', '3-0', { status: 'succeeded' }))
    await waitFor(() => expect(view.getByTestId('fix-status').textContent).toBe('succeeded'))
    expect(view.getByTestId('fix-outcome').dataset.outcome).toBe('out of budget')
    expect(view.getByTestId('fix-not-tried').textContent).toBe('Not tried: b=on.')
    expect(view.queryByTestId('fix-cancel')).toBeNull()
    expect(view.queryByTestId('fix-progress')).toBeNull()
    expect(source.readyState).toBe(FakeEventSource.CLOSED)
    expect(gets).toHaveBeenCalledTimes(3)
  })
})
