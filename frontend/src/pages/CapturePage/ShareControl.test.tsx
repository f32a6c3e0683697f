import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { captureSharePath } from '../../api/captures'
import { ShareControl } from './ShareControl'

afterEach(cleanup)

function shown(
  shared: boolean,
  share = vi.fn(async (): Promise<{ share_token?: string | null }> => ({ share_token: 'tok_en' })),
  revoke = vi.fn(async () => ({})),
) {
  const onChanged = vi.fn()
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ShareControl shared={shared} pathOf={captureSharePath} share={share} revoke={revoke} onChanged={onChanged} testId="capture-share" />
    </QueryClientProvider>,
  )
  return { share, revoke, onChanged }
}

describe('ShareControl', () => {
  it('offers a link where there is none, and shows its whole address once made', async () => {
    const { share, onChanged } = shown(false)
    expect(screen.queryByTestId('capture-share-url')).toBeNull()
    fireEvent.click(screen.getByTestId('capture-share-create'))
    await waitFor(() => expect(onChanged).toHaveBeenCalled())
    expect(share).toHaveBeenCalledTimes(1)
    const url = (await screen.findByTestId('capture-share-url')) as HTMLInputElement
    expect(url.value).toBe(`${window.location.origin}/share/captures/tok_en`)
  })

  it('says a live link is shared without its address (shown once, when made) and revokes it', async () => {
    const { revoke, onChanged } = shown(true)
    expect(screen.queryByTestId('capture-share-url')).toBeNull()
    expect(screen.getByTestId('capture-share-shared').textContent).toContain('shown once')
    expect(screen.queryByTestId('capture-share-create')).toBeNull()
    fireEvent.click(screen.getByTestId('capture-share-revoke'))
    await waitFor(() => expect(onChanged).toHaveBeenCalled())
    expect(revoke).toHaveBeenCalledTimes(1)
  })
})
