import { act, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { CheckRead } from '../../client'
import { renderOverApi, withFakeStreams } from '../../test/api'
import { FakeEventSource } from '../../test/fakeEventSource'
import { ChecksSection } from './ChecksSection'

// Capture 2's checks as GET /api/captures/2/checks answers them: #5 running, #4 done.
const check = (id: number, status: string) =>
  ({
    id, capture_id: 2, target: 'mariadb-11.8', status, error: null, server: null, created_at: '2026-12-06T05:00:00Z',
    started_at: null, finished_at: null, findings: [], account_findings: [],
  }) as unknown as CheckRead // prettier-ignore

let checks: CheckRead[] = []
const lists = vi.fn()

function respond(request: Request): Response {
  const path = new URL(request.url).pathname
  if (path === '/api/auth/me') return Response.json({ username: 'ada', role: 'operator' })
  if (path === '/api/targets') return Response.json([])
  if (path === '/api/captures/2/checks') {
    lists()
    return Response.json(checks)
  }
  return Response.json({ detail: 'not found' }, { status: 404 })
}

const show = () => renderOverApi(<ChecksSection captureId={2} canCheck canShare={false} />, respond)

withFakeStreams()
beforeEach(() => {
  checks = [check(5, 'running'), check(4, 'succeeded')]
  lists.mockClear()
})

describe('ChecksSection', () => {
  it('follows a running check over its events, not by polling, and shows its end', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const view = show()
    await waitFor(() => expect(view.getAllByTestId('check-status').map((s) => s.textContent)).toEqual(['running', 'succeeded']))
    // one stream, the running check's; the finished one has none
    expect(FakeEventSource.opened.map((s) => s.url)).toEqual(['/api/captures/2/checks/5/events'])
    const [source] = FakeEventSource.opened
    act(() => {
      source.connect()
      source.emit('snapshot', '1-0', { status: 'running', progress: null })
    })
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3000) // twice the old poll's 1.5 s
    })
    expect(lists).toHaveBeenCalledTimes(1) // the snapshot says what the page holds: nothing asked

    checks = [check(5, 'succeeded'), check(4, 'succeeded')]
    act(() => source.emit('status', '2-0', { status: 'succeeded' }))
    await waitFor(() => expect(view.getAllByTestId('check-status')[0].textContent).toBe('succeeded'))
    expect(lists).toHaveBeenCalledTimes(2)
    expect(source.readyState).toBe(FakeEventSource.CLOSED)
  })

  it('reads the checks every 1.5 s while the stream is down', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const view = show()
    await waitFor(() => expect(view.getAllByTestId('check-status')).toHaveLength(2))
    act(() => FakeEventSource.opened[0].fail())
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1600)
    })
    expect(lists).toHaveBeenCalledTimes(2)
  })
})
