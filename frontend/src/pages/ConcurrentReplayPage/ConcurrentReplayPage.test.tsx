import { waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { ConcurrentReplayRead } from '../../client'
import { renderOverApi, withFakeStreams } from '../../test/api'
import { atRoute } from '../../test/router'
import { ConcurrentReplayPage, ConcurrentReplaySharePage } from './ConcurrentReplayPage'

// A decided concurrent replay as GET /api/concurrent-replays/3 answers it: 11.8's 1020 a break.
const DONE = {
  id: 3, name: 'shop: 2 sessions on 3 variants', dataset_id: 1, status: 'succeeded', error: null, source_format: 'general',
  variants: [], rounds: 5, speed: 1, statement_timeout_s: 30, max_trial_s: 600, max_sessions: 256, sessions: 2,
  statements: 7, transactions: 2, duration_s: 2, cut: [], progress: null, schedule: null, trials: [],
  created_at: '2026-12-06T08:00:00Z', started_at: null, finished_at: null, share_token: null, shared: false,
  report: {
    baseline: '10.11', aa_control: '10.11 (A/A)', partial: false, fdr: 'Benjamini-Hochberg across ...',
    throughput: [], tables: [],
    clock: 'client: every verdict on the client\'s clock',
    server_clocks: {
      '11.8': 'server clock not available: performance_schema is OFF on this server',
      '9.7': 'performance_schema events_statements_histogram_by_digest (server clock)',
    },
    fingerprints: [{
      variant: '9.7', metric: 'p95', class_id: 'C2', fingerprint: 'update c set v = v ? ? where id = ?',
      baseline_median: 0.004, variant_median: 0.0072, baseline_server_p95_s: 0.003, variant_server_p95_s: 0.0031,
      verdict: null, p_value: 0.001, q_value: 0.002, group: 'slower', reason: 'regression', causes: [],
    }],
    errors: [{
      variant: '11.8', code: 1020, per_trial: [1, 1, 1, 1, 1], appears: 5, trials: 5, reference_appears: 0,
      reference_trials: 10, p_value: 0.0003, q_value: 0.0003, group: 'breaks',
      reason: 'error 1020 appears in 5 of 5 trials, 0 of 10 reference trials',
      sample: { code: 1020, count: 1, sql: 'UPDATE c SET v = v + 1 WHERE id = 1', session: 0, thread_id: 11, order: 2,
        message: 'Record has changed since last read' },
    }],
    groups: [{ variant: '11.8', trials: 5, breaks: 1, slower: 0, faster: 0, same: 3, undecided: 0, copy_s: 0.2, wall_s: 2.1 }],
  },
} as unknown as ConcurrentReplayRead  // prettier-ignore

function respond(request: Request): Response {
  const path = new URL(request.url).pathname
  if (path === '/api/auth/me') return Response.json({ username: 'ada', role: 'operator' })
  if (path === '/api/concurrent-replays/3') return Response.json(DONE)
  if (path === '/api/public/concurrent-replays/tok') return Response.json(DONE)
  return Response.json({ detail: 'not found' }, { status: 404 })
}

withFakeStreams()

describe('ConcurrentReplayPage', () => {
  it('opens with its answer per variant, then the break with its count per trial and first statement', async () => {
    const view = renderOverApi(atRoute(<ConcurrentReplayPage />, '/concurrent-replays/3', '/concurrent-replays/:id'), respond)
    await waitFor(() => expect(view.getByTestId('concurrent-status').textContent).toBe('succeeded'))
    expect(view.getByTestId('concurrent-answer').textContent).toContain('11.8: 1 break, 0 slower, 0 faster, 3 same')
    const [found] = view.getAllByTestId('concurrent-break')
    expect(found.dataset.code).toBe('1020')
    expect(found.textContent).toContain('per trial 1, 1, 1, 1, 1')
    expect(found.textContent).toContain('thread 11')
    expect(found.textContent).toContain('UPDATE c SET v = v + 1 WHERE id = 1')
    expect(view.queryByTestId('concurrent-cancel')).toBeNull()
  })

  it("shows a p95 verdict's client medians with the server's beside them, and the clock each is on", async () => {
    const view = renderOverApi(atRoute(<ConcurrentReplayPage />, '/concurrent-replays/3', '/concurrent-replays/:id'), respond)
    await waitFor(() => expect(view.getByTestId('concurrent-server-p95').textContent).toBe('3.00 → 3.10'))
    expect(view.getByTestId('concurrent-verdicts').textContent).toContain('4.00 → 7.20')
    const clocks = view.getByTestId('concurrent-clocks').textContent
    expect(clocks).toContain("Clock: client: every verdict on the client's clock")
    expect(clocks).toContain('11.8: server clock not available: performance_schema is OFF')
  })

  it('opens a share link signed out: the same answer, its exports and no cancel', async () => {
    const view = renderOverApi(
      atRoute(<ConcurrentReplaySharePage />, '/share/concurrent-replays/tok', '/share/concurrent-replays/:token'),
      respond,
    )
    await waitFor(() => expect(view.getByTestId('concurrent-answer').textContent).toContain('11.8: 1 break'))
    expect(view.getByTestId('concurrent-csv').getAttribute('href')).toBe('/api/public/concurrent-replays/tok/export?format=csv')
    expect(view.queryByTestId('concurrent-cancel')).toBeNull()
  })
})
