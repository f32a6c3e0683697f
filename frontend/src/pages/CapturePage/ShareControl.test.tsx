import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { captureSharePath } from '../../api/captures'
import { ShareControl } from './ShareControl'

afterEach(cleanup)

function shown(token: string | null, share = vi.fn(async () => ({})), revoke = vi.fn(async () => ({}))) {
  const onChanged = vi.fn()
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ShareControl token={token} pathOf={captureSharePath} share={share} revoke={revoke} onChanged={onChanged} testId="capture-share" />
    </QueryClientProvider>,
  )
  return { share, revoke, onChanged }
}

describe('ShareControl', () => {
  it('offers a link where there is none, and asks for it once pressed', async () => {
    const { share, onChanged } = shown(null)
    expect(screen.queryByTestId('capture-share-url')).toBeNull()
    fireEvent.click(screen.getByTestId('capture-share-create'))
    await waitFor(() => expect(onChanged).toHaveBeenCalled())
    expect(share).toHaveBeenCalledTimes(1)
  })

  it('shows the whole address of a link and revokes it', async () => {
    const { revoke, onChanged } = shown('tok_en')
    const url = screen.getByTestId('capture-share-url') as HTMLInputElement
    expect(url.value).toBe(`${window.location.origin}/share/captures/tok_en`)
    expect(screen.queryByTestId('capture-share-create')).toBeNull()
    fireEvent.click(screen.getByTestId('capture-share-revoke'))
    await waitFor(() => expect(onChanged).toHaveBeenCalled())
    expect(revoke).toHaveBeenCalledTimes(1)
  })
})
