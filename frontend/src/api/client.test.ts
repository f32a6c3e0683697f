import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError, api, formatDetail } from './client'

function respond(status: number, body: unknown) {
  const fetch = vi.fn(async (_request: Request) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }))
  vi.stubGlobal('fetch', fetch)
  return fetch
}

afterEach(() => vi.unstubAllGlobals())

describe('errors of the generated client, as the form shows them', () => {
  it("names the field of a 422 without FastAPI's body prefix", async () => {
    respond(422, { detail: [{ loc: ['body', 'variants', 0, 'target'], msg: 'unknown target mysql-1' }] })
    const error = await api.createExperiment({ workload: 'insert-truncate', iterations: 3, variants: [] }).catch((e) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error.status).toBe(422)
    expect(error.message).toBe('variants.0.target: unknown target mysql-1')
  })

  it('joins several messages and keeps a plain detail as it is', () => {
    expect(formatDetail([{ loc: ['query', 'runs'], msg: 'bad' }, { msg: 'worse' }])).toBe('runs: bad; worse')
    expect(formatDetail('run 9 not found')).toBe('run 9 not found')
    expect(formatDetail(null)).toBeNull()
  })

  it('sends the request the schema describes and returns the typed body', async () => {
    const fetch = respond(200, { items: [], total: 0, limit: 20, offset: 40 })
    const page = await api.runs(20, 40, { status: ['failed', 'cancelled'], q: 'redo' })
    expect(page.offset).toBe(40)
    const url = new URL(fetch.mock.calls[0][0].url)
    expect(url.pathname).toBe('/api/runs')
    expect(url.searchParams.getAll('status')).toEqual(['failed', 'cancelled'])
    expect(url.searchParams.get('q')).toBe('redo')
  })

  it('asks for sign-in on a 401 outside /api/auth, not for a failed login', async () => {
    const asked = vi.fn()
    window.addEventListener('upgradelab:unauthorized', asked)
    respond(401, { detail: 'sign in' })
    await expect(api.run(1)).rejects.toThrow('sign in')
    expect(asked).toHaveBeenCalledTimes(1)
    respond(401, { detail: 'wrong password' })
    await expect(api.login('a', 'b')).rejects.toThrow('wrong password')
    expect(asked).toHaveBeenCalledTimes(1)
    window.removeEventListener('upgradelab:unauthorized', asked)
  })

  it('reports a network failure as one', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('connection refused'))))
    await expect(api.targets()).rejects.toThrow('Network error: connection refused')
  })
})
