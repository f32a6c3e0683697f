import type { ReactNode } from 'react'

interface Props {
  /** The request it started is under way: the button is disabled and says `busy`. */
  pending: boolean
  /** What it says meanwhile ("Starting…", "Cancelling…"). */
  busy: string
  testId: string
  className?: string
  type?: 'button' | 'submit'
  /** Disabled for another reason (nothing chosen yet). */
  disabled?: boolean
  onClick?: () => void
  children: ReactNode
}

/** A button that starts one request (a mutation) and says so until it is answered: one click, one
 * request. */
export function PendingButton({ pending, busy, testId, className = 'btn btn-secondary', type = 'button', disabled = false, onClick, children }: Props) {
  return (
    <button type={type} className={className} data-testid={testId} disabled={pending || disabled} onClick={onClick}>
      {pending ? busy : children}
    </button>
  )
}
