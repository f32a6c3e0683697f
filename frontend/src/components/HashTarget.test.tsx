import { act, cleanup, fireEvent, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { useCollapsedRows } from './CollapsedRows'
import { useHashId } from './HashTarget'

const ROWS = Array.from({ length: 25 }, (_, n) => `r${n}`)

/** A table collapsed past 20 rows whose named row (the address's `#row-rN`) must be shown. */
function Table() {
  const named = useHashId().replace(/^row-/, '')
  const { shown, toggle } = useCollapsedRows(ROWS, 'more', undefined, ROWS.indexOf(named))
  return (
    <>
      <p data-testid="named">{named}</p>
      <p data-testid="count">{shown.length}</p>
      {toggle}
    </>
  )
}

const goTo = (hash: string) =>
  act(() => {
    window.history.replaceState(null, '', hash)
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  })

afterEach(() => {
  cleanup()
  window.history.replaceState(null, '', '#')
})

describe('the row an address names', () => {
  it('is read decoded and followed on hashchange; a table collapsed over it opens, and closes when the reader says so', () => {
    goTo('#row-r3')
    const view = render(<Table />)
    expect(view.getByTestId('named').textContent).toBe('r3')
    expect(view.getByTestId('count').textContent).toBe('20') // r3 is among the first 20: stays collapsed
    goTo('#row-r%32%33') // r23, escaped
    expect(view.getByTestId('named').textContent).toBe('r23')
    expect(view.getByTestId('count').textContent).toBe('25')
    fireEvent.click(view.getByTestId('more')) // the reader's choice wins
    expect(view.getByTestId('count').textContent).toBe('20')
  })
})
