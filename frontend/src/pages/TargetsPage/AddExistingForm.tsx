import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useNavigate } from 'react-router-dom'
import { api } from '../../api/client'
import type { TargetCreate as ExistingTargetCreate } from '../../client'
import { ErrorBox } from '../../components/ErrorBox'
import { targetsQuery } from '../../queries/targets'

const EMPTY = { name: '', host: '127.0.0.1', port: '3306', user: '', password: '', database: '', sslCa: '' }

/** What an existing server is added for, read-only first (the default, issue 49): each with the one line
 * that says what the lab may do there. */
const PURPOSES = [
  {
    value: 'capture',
    label: 'Capture, check and assess (read-only)',
    means: 'A read-only account is enough; the lab never writes there: no run or replay, no write checks.',
  },
  {
    value: 'workloads',
    label: 'Run workloads and replays here',
    means: "The lab writes in its own database there (needed) and tries a no-op SET GLOBAL and a scratch table on adding.",
  },
] as const

/** Admins: add a server the lab does not run, read-only unless workloads are asked for; its
 * capabilities are detected before it is stored. */
export function AddExistingForm() {
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const [fields, setFields] = useState(EMPTY)
  const [verifyIdentity, setVerifyIdentity] = useState(false)
  const [disposable, setDisposable] = useState(false)
  const [restartTest, setRestartTest] = useState(false)
  const [purpose, setPurpose] = useState<'workloads' | 'capture'>('capture')
  const readOnly = purpose === 'capture'
  const create = useMutation({
    mutationFn: (body: ExistingTargetCreate) => api.createTarget(body),
    onSuccess: (target) => {
      void queryClient.invalidateQueries(targetsQuery())
      navigate(`/targets/${encodeURIComponent(target.name)}`)
    },
  })

  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate({
      name: fields.name.trim(),
      flavor: 'mysql', // the server's own flavor is detected and stored
      provisioner: 'existing',
      disposable: readOnly ? false : disposable,
      restart_test: readOnly ? false : restartTest,
      settings: {
        host: fields.host.trim(),
        port: Number(fields.port),
        user: fields.user,
        password: fields.password,
        purpose,
        ...(fields.database.trim() ? { database: fields.database.trim() } : {}),
        ssl_verify_identity: verifyIdentity,
        ...(fields.sslCa.trim() ? { ssl_ca: fields.sslCa.trim() } : {}),
      },
    })
  }
  const input = (key: keyof typeof EMPTY, label: string, type = 'text') => (
    <label className="field" htmlFor={`existing-${key}`}>
      <span>{label}</span>
      <input
        id={`existing-${key}`}
        data-testid={`existing-${key}`}
        type={type}
        value={fields[key]}
        autoComplete="off"
        onChange={(e) => setFields((f) => ({ ...f, [key]: e.target.value }))}
      />
    </label>
  )
  return (
    <form className="form-section experiment-form" onSubmit={submit} data-testid="add-existing-form">
      <h2>Add existing server</h2>
      <p className="hint">
        A MySQL or MariaDB server the lab does not run (staging RDS/Aurora, a team's own instance). Hosts other than
        loopback must be listed in UPGRADELAB_EXISTING_HOSTS. The lab works only inside the database you name.
      </p>
      <fieldset className="purpose-choice" data-testid="existing-purpose">
        <legend>Purpose</legend>
        {PURPOSES.map((p) => (
          <label key={p.value} className="small">
            <input
              type="radio"
              name="existing-purpose"
              value={p.value}
              data-testid={`existing-purpose-${p.value}`}
              checked={purpose === p.value}
              onChange={() => setPurpose(p.value)}
            />{' '}
            <strong>{p.label}</strong>: <span className="muted">{p.means}</span>
          </label>
        ))}
      </fieldset>
      <div className="parameter-fields">
        {input('name', 'Target name')}
        {input('host', 'Host')}
        {input('port', 'Port', 'number')}
        {input('user', 'User')}
        {input('password', 'Password', 'password')}
        {input('database', readOnly ? "The lab's database (not needed)" : "The lab's database")}
        {input('sslCa', 'TLS CA file (optional)')}
      </div>
      <p>
        <label className="small">
          <input type="checkbox" checked={verifyIdentity} onChange={(e) => setVerifyIdentity(e.target.checked)} />{' '}
          verify the server's identity (TLS)
        </label>{' '}
        <label className="small">
          <input
            type="checkbox"
            data-testid="existing-disposable"
            disabled={readOnly}
            checked={disposable}
            onChange={(e) => setDisposable(e.target.checked)}
          />{' '}
          disposable (writing templates may run)
        </label>{' '}
        <label className="small">
          <input type="checkbox" disabled={readOnly} checked={restartTest} onChange={(e) => setRestartTest(e.target.checked)} /> try a
          real RESTART
        </label>
      </p>
      {create.error && <ErrorBox error={create.error} title="Target refused" />}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" data-testid="add-existing-submit" disabled={create.isPending}>
          {create.isPending ? 'Detecting capabilities…' : 'Add and detect'}
        </button>
      </div>
    </form>
  )
}
