import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Fragment, useState } from 'react'
import { capturesApi, checkCsvPath, checkSharePath } from '../../api/captures'
import { ErrorBox } from '../../components/ErrorBox'
import { isFinal } from '../../api/models'
import { checksQuery } from '../../queries/captures'
import { CheckEvents } from './CheckEvents'
import { targetsQuery } from '../../queries/targets'
import { CheckView } from './CheckView'
import { ShareControl } from './ShareControl'
import { teamHostOf } from './teamHost'

/** The lab's own servers a check can start its scratch instance on (api/captures.py: local or tarball). */
const CHECKABLE = new Set(['local', 'tarball'])

/** "Checks against a new version": every check of this capture, newest first, each with its
 * headline, findings (each with what to do) and findings.csv, and its share link when `canShare`
 * (not a viewer's); then the form that starts another (a lab target, the team's CPUs and memory).
 * A running check is followed over its events (CheckEvents), not polled. */
export function ChecksSection({
  captureId,
  canCheck,
  canShare,
}: {
  captureId: number
  canCheck: boolean
  canShare: boolean
}) {
  const queryClient = useQueryClient()
  const targets = useQuery(targetsQuery())
  const checks = useQuery(checksQuery(captureId))
  const choices = (targets.data ?? []).filter((t) => CHECKABLE.has(t.provisioner))
  const [chosen, setChosen] = useState('')
  const [cpus, setCpus] = useState('')
  const [memoryGib, setMemoryGib] = useState('')
  const target = chosen || choices[0]?.name || ''
  const refresh = () => void queryClient.invalidateQueries(checksQuery(captureId))
  const create = useMutation({
    mutationFn: () => capturesApi.createCheck(captureId, target, teamHostOf(cpus, memoryGib)),
    onSuccess: refresh,
  })
  return (
    <section data-testid="capture-checks">
      <h2>Checks against a new version</h2>
      <ErrorBox error={create.error ?? checks.error} title="Check" testId="check-request-error" />
      {(checks.data ?? []).map((check) => (
        <Fragment key={check.id}>
          {!isFinal(check.status) && <CheckEvents captureId={captureId} checkId={check.id} />}
          <CheckView
            check={check}
            cancel={() => capturesApi.cancelCheck(captureId, check.id)}
            onCancelled={refresh}
            csvHref={checkCsvPath(captureId, check.id)}
            share={
              canShare && (
                <ShareControl
                  testId="check-share"
                  shared={check.shared ?? false}
                  pathOf={checkSharePath}
                  share={() => capturesApi.shareCheck(captureId, check.id)}
                  revoke={() => capturesApi.revokeCheckShare(captureId, check.id)}
                  onChanged={refresh}
                />
              )
            }
          />
        </Fragment>
      ))}
      <p className="muted small">
        A check starts the team's settings on a scratch instance of the new version, loads the captured schema there
        and asks its parser the captured statements (never run); host-computed defaults are resolved for the team's
        server (its CPUs and memory where the capture does not show them) and for the lab's.
      </p>
      {canCheck ? (
        <div className="toolbar">
          <select value={target} onChange={(e) => setChosen(e.target.value)} data-testid="check-target">
            {choices.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name} ({t.flavor}{t.version ? ` ${t.version}` : ''})
              </option>
            ))}
          </select>
          <label className="small">
            Team's CPUs{' '}
            <input type="number" min={1} value={cpus} onChange={(e) => setCpus(e.target.value)}
              style={{ width: '5em' }} data-testid="check-team-cpus" />
          </label>
          <label className="small">
            memory (GiB){' '}
            <input type="number" min={1} value={memoryGib} onChange={(e) => setMemoryGib(e.target.value)}
              style={{ width: '6em' }} data-testid="check-team-memory" />
          </label>
          <button
            type="button"
            className="btn btn-primary"
            data-testid="check-start"
            disabled={!target || create.isPending}
            onClick={() => create.mutate()}
          >
            Check
          </button>
        </div>
      ) : (
        <p className="muted small">A check needs a succeeded capture.</p>
      )}
    </section>
  )
}
