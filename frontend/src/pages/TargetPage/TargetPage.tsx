import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useParams } from 'react-router-dom'
import { api } from '../../api/client'
import type { Capabilities } from '../../client'
import { ErrorBox } from '../../components/ErrorBox'
import { CapabilityTable } from './CapabilityTable'
import { CaptureAction } from './CaptureAction'
import { AssessForm } from '../../components/AssessForm'
import { targetQuery, targetsQuery } from '../../queries/targets'
import { meQuery } from '../../queries/users'
import { PendingButton } from '../../components/PendingButton'

function yesNo(value: boolean | null): string {
  return value === null ? 'n/a' : value ? 'ON' : 'OFF'
}

/** Facts of an existing server, as detected. */
function ServerFacts({ c }: { c: Capabilities }) {
  return (
    <p className="run-meta" data-testid="server-facts">
      <span>
        {c.flavor} {c.version}
      </span>
      <span>version_comment: {c.version_comment || '(empty)'}</span>
      {c.managed_service && <span data-testid="managed-service">{c.managed_service}</span>}
      <span>signed in as {c.user}</span>
      <span>read_only {yesNo(c.read_only)}</span>
      <span>super_read_only {yesNo(c.super_read_only)}</span>
      <span>log_bin {yesNo(c.log_bin)}</span>
      <span>detected {new Date(c.detected_at).toLocaleString()}</span>
    </p>
  )
}

/** One target: how the lab reaches it and, for an existing server, what the lab may do there. */
export function TargetPage() {
  const { name = '' } = useParams()
  const queryClient = useQueryClient()
  const me = useQuery(meQuery())
  const target = useQuery(targetQuery(name))
  const [restartTest, setRestartTest] = useState(false)
  const detect = useMutation({
    mutationFn: () => api.detectCapabilities(name, restartTest),
    onSuccess: (detail) => {
      queryClient.setQueryData(targetQuery(name).queryKey, detail)
      void queryClient.invalidateQueries(targetsQuery())
    },
  })

  if (!target.data) {
    return (
      <div className="page">
        {target.error ? <ErrorBox error={target.error} title="Could not load the target" /> : <p className="muted">Loading…</p>}
      </div>
    )
  }
  const t = target.data
  const c = t.capabilities
  const restart = c?.checks.find((check) => check.name === 'restart')
  return (
    <div className="page" data-testid="target-page">
      <p className="small">
        <Link to="/targets">Targets</Link>
      </p>
      <h1>{t.name}</h1>
      <p className="run-meta">
        <span>{t.provisioner}</span>
        <span>{t.flavor}</span>
        <span>{t.version ?? 'version not read yet'}</span>
        {t.connection?.purpose === 'capture' && (
          <span data-testid="target-read-only">read-only: capture and check only, never written to</span>
        )}
        <span data-testid="target-disposable">{t.disposable ? 'disposable' : 'not disposable: read-only templates only'}</span>
      </p>
      {t.connection && (
        <p className="mono" data-testid="target-connection">
          {t.connection.user}@{t.connection.host}:{t.connection.port}/{t.connection.database ?? ''}
          {t.connection.ssl_ca ? ` TLS (CA ${t.connection.ssl_ca}${t.connection.ssl_verify_identity ? ', identity verified' : ''})` : ' no TLS'}
          {/* the plugins the lab's clients answer there; cleartext (LDAP/PAM) only when opted in, over TLS */}
          {t.connection.auth_plugins?.length ? ` · auth ${t.connection.auth_plugins.join(', ')}` : ''}
          {t.connection.allow_cleartext ? ' · cleartext allowed over TLS' : ''}
        </p>
      )}
      {c ? (
        <section>
          <h2>What the lab may do here</h2>
          <ServerFacts c={c} />
          {restart && !restart.available && (
            <p className="notice" data-testid="warm-only-note">
              Warm only: this server cannot be restarted by the lab ({restart.detail}), so cold policies are refused.
              Runs share this one server between its variants; each variant's SET GLOBAL settings are applied again at
              the start of its blocks. Startup options cannot reach it.
            </p>
          )}
          <CapabilityTable checks={c.checks} />
          {me.data?.role === 'admin' && (
            <div className="toolbar">
              <PendingButton pending={detect.isPending} busy="Detecting…" testId="detect-capabilities" onClick={() => detect.mutate()}>
                Detect again
              </PendingButton>
              <label className="small">
                <input type="checkbox" checked={restartTest} onChange={(e) => setRestartTest(e.target.checked)} /> also
                try a real RESTART
              </label>
            </div>
          )}
          {detect.error && <ErrorBox error={detect.error} title="Detection failed" />}
        </section>
      ) : (
        <p className="muted">
          The lab runs this server itself ({t.provisioner}): every capability, startup options included.
        </p>
      )}
      <CaptureAction target={t.name} mayAct={me.data !== undefined && me.data.role !== 'viewer'} />
      <AssessForm source={{ target: t.name }} mayAct={me.data !== undefined && me.data.role !== 'viewer'} />
    </div>
  )
}
