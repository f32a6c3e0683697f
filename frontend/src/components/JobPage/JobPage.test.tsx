import { act, cleanup, fireEvent, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { jsonAnswer, renderOverApi } from '../../test/api'
import { atRoute } from '../../test/router'
import { CancelButton } from './CancelButton'
import { jobControls, type JobControlsOf } from './JobPage'
import { SharedPage } from './SharedPage'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const me = (role: string) => jsonAnswer((path) => (path === '/api/auth/me' ? { username: 'ada', role } : null))

describe('CancelButton', () => {
  it('asks once, then says Cancelling… until the job is final', async () => {
    let answer: (value: unknown) => void = () => {}
    const cancel = vi.fn(() => new Promise((resolve) => (answer = resolve)))
    const view = renderOverApi(<CancelButton cancel={cancel} testId="replay-cancel" />, me('operator'))
    const button = await waitFor(() => view.getByTestId('replay-cancel'))
    fireEvent.click(button)
    await waitFor(() => expect(button.textContent).toBe('Cancelling…'))
    expect((button as HTMLButtonElement).disabled).toBe(true)
    await act(async () => answer({}))
    expect(button.textContent).toBe('Cancelling…') // asked: the job's final status hides it
    expect(cancel).toHaveBeenCalledTimes(1)
  })

  it('shows a refused cancel in the API’s words', async () => {
    const cancel = vi.fn(async () => {
      throw new Error('the run is already final')
    })
    const view = renderOverApi(<CancelButton cancel={cancel} testId="run-cancel" />, me('operator'))
    fireEvent.click(await waitFor(() => view.getByTestId('run-cancel')))
    await waitFor(() => expect(view.getByRole('alert').textContent).toBe('Cancel failed: the run is already final'))
  })

  it('is not shown to a viewer', async () => {
    const view = renderOverApi(<CancelButton cancel={vi.fn()} testId="run-cancel" />, me('viewer'))
    await waitFor(() => expect(vi.mocked(fetch)).toHaveBeenCalled())
    await waitFor(() => expect(view.queryByTestId('run-cancel')).toBeNull())
  })
})

describe('jobControls', () => {
  const KIND: JobControlsOf = { testId: 'fix', apiPath: '/api/fixsearches', cancel: vi.fn(), share: async () => '/share/fixsearches/t' }

  it('names every control by the kind: cancel while live, exports, share', async () => {
    const { actions, tools } = jobControls(KIND, { id: 7, shared: false }, true, () => {})
    const view = renderOverApi(
      <>
        {actions}
        {tools}
      </>,
      me('operator'),
    )
    await waitFor(() => expect(view.getByTestId('fix-cancel')).toBeTruthy())
    expect(view.getByTestId('fix-csv').getAttribute('href')).toBe('/api/fixsearches/7/export?format=csv')
    expect(view.getByTestId('fix-json').getAttribute('href')).toBe('/api/fixsearches/7/export?format=json')
    fireEvent.click(view.getByTestId('fix-share-button'))
    await waitFor(() => expect(view.getByTestId('fix-share').getAttribute('href')).toBe('/share/fixsearches/t'))
  })

  it('has no cancel once the job is final', () => {
    expect(jobControls(KIND, { id: 7 }, false, () => {}).actions).toBe(false)
  })
})

describe('SharedPage', () => {
  const query = (token: string) => ({ queryKey: ['shared-thing', token], queryFn: () => fetch(new Request(`${window.location.origin}/api/public/things/${token}`)).then(okJson) })
  const okJson = async (response: Response) => {
    if (!response.ok) throw new Error((await response.json()).detail)
    return (await response.json()) as { name: string }
  }
  const answer = jsonAnswer((path) => (path === '/api/public/things/good' ? { name: 'nightly' } : null), 'shared link not found')

  it('shows what its token opens under the read-only banner', async () => {
    const view = renderOverApi(
      atRoute(<SharedPage query={query}>{(data, token) => <p data-testid="thing">{`${data.name} ${token}`}</p>}</SharedPage>, '/share/good', '/share/:token'),
      answer,
    )
    await waitFor(() => expect(view.getByTestId('thing').textContent).toBe('nightly good'))
    expect(view.getByTestId('share-page').textContent).toContain('Shared read-only view')
  })

  it('says why a link does not work', async () => {
    const view = renderOverApi(atRoute(<SharedPage query={query}>{() => null}</SharedPage>, '/share/gone', '/share/:token'), answer)
    await waitFor(() => expect(view.getByTestId('share-error').textContent).toBe('This link does not work: shared link not found'))
  })
})
