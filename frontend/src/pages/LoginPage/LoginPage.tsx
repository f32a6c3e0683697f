import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api/client'
import { ErrorBox } from '../../components/ErrorBox'

/** Sign in; the API sets the session cookie. */
export function LoginPage() {
  const queryClient = useQueryClient()
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const login = useMutation({
    mutationFn: () => api.login(username, password),
    onSuccess: () => void queryClient.invalidateQueries(),
  })
  return (
    <div className="page login-card" data-testid="login-page">
      <h1>Sign in</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          login.mutate()
        }}
      >
        <div className="field">
          <label htmlFor="login-username">Username</label>
          <input id="login-username" data-testid="login-username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="login-password">Password</label>
          <input
            id="login-password"
            type="password"
            data-testid="login-password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </div>
        <button type="submit" className="btn btn-primary" data-testid="login-submit" disabled={login.isPending}>
          Sign in
        </button>
        <ErrorBox error={login.error} title="Sign-in failed" testId="login-error" />
      </form>
    </div>
  )
}
