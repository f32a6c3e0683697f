interface Props {
  error: unknown
  testId?: string
  title?: string
}

export function ErrorBox({ error, testId, title }: Props) {
  if (error == null) return null
  const message = error instanceof Error ? error.message : String(error)
  return (
    <div className="error-box" role="alert" data-testid={testId}>
      {title && <strong>{title}: </strong>}
      <span className="error-message">{message}</span>
    </div>
  )
}
