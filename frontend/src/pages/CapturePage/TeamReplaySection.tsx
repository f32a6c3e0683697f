import { useMutation, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useNavigate } from 'react-router-dom'
import { api } from '../../api/client'
import { capturesApi } from '../../api/captures'
import type { CaptureRead, TeamVariantRead } from '../../client'
import { ErrorBox } from '../../components/ErrorBox'
import { checksQuery } from '../../queries/captures'
import { datasetsQuery } from '../../queries/datasets'
import { targetsQuery } from '../../queries/targets'
import { defaultOldTarget, optionTargets, teamReplayBody } from './teamReplay'

/** The capture's settings on one target: the options a variant starts with, what was dropped (and
 * why, in the server's words where a check refused it) and what was scaled to the lab's memory. */
function TeamSettings({ settings }: { settings: TeamVariantRead }) {
  const options = Object.entries(settings.options)
  return (
    <div className="card" data-testid={`team-settings-${settings.target}`}>
      <strong>{settings.target}</strong>: {options.length} settings
      {settings.checked_by == null ? (
        <span className="muted small">
          {' '}
          (no check of this capture against {settings.target} yet: what it refuses is not dropped; check first)
        </span>
      ) : (
        <span className="muted small"> (refusals from check #{settings.checked_by} dropped)</span>
      )}
      <div className="mono small" style={{ wordBreak: 'break-all' }}>
        {options.map(([name, value]) => (value == null ? name : `${name}=${value}`)).join(' ') || '(none)'}
      </div>
      {settings.dropped.length > 0 && (
        <details data-testid="team-dropped">
          <summary>{settings.dropped.length} dropped</summary>
          <ul className="small">
            {settings.dropped.map((d) => (
              <li key={d.name}>
                <code>{d.line ?? d.name}</code>: {d.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      {(settings.trimmed ?? []).map((t) => (
        <p key={t.name} className="small" data-testid="team-trimmed">
          <code>{t.name}</code> kept as <code>{t.used}</code>: {t.reason}
        </p>
      ))}
      {settings.scaled.map((s) => (
        <p key={s.name} className="small" data-testid="team-scaled">
          <code>{s.name}</code> scaled: {s.reason}
        </p>
      ))}
    </div>
  )
}

/** "Replay with the team's settings": the captured statements replayed on a dataset, on the old and
 * the new version's lab targets, each starting with the capture's settings as it takes them. */
export function TeamReplaySection({ capture }: { capture: CaptureRead }) {
  const navigate = useNavigate()
  const targets = useQuery(targetsQuery())
  const datasets = useQuery(datasetsQuery())
  const choices = optionTargets(targets.data ?? [])
  const [oldChosen, setOld] = useState('')
  const [newChosen, setNew] = useState('')
  const [datasetChosen, setDataset] = useState('')
  const oldTarget = oldChosen || defaultOldTarget(capture, choices)
  const newTarget = newChosen || choices.find((t) => t.name !== oldTarget)?.name || ''
  // the capture's own dump first, when it was stored as a dataset
  const dataset = datasetChosen || capture.dump?.dataset || datasets.data?.[0]?.name || ''
  const chosen = [oldTarget, newTarget].filter(Boolean)
  // a check that succeeds since changes what is dropped: asked again then
  const checks = useQuery(checksQuery(capture.id))
  const succeeded = (checks.data ?? []).filter((c) => c.status === 'succeeded').map((c) => c.id)
  const settings = useQuery({
    queryKey: ['capture', capture.id, 'variant', chosen, succeeded] as const,
    queryFn: () => Promise.all(chosen.map((t) => capturesApi.variant(capture.id, t, chosen.length))),
    enabled: chosen.length > 0,
  })
  const replay = useMutation({
    mutationFn: async () => {
      const queries = await capturesApi.queries(capture.id)
      if (!queries.trim()) throw new Error('the capture holds no replayable statement (digest texts only, or none)')
      return api.createReplay(teamReplayBody(capture.id, dataset, queries, settings.data ?? []))
    },
    onSuccess: (created) => void navigate(`/replays/${created.id}`),
  })
  const select = (value: string, set: (v: string) => void, testId: string) => (
    <select style={{ width: 'auto' }} value={value} onChange={(e) => set(e.target.value)} data-testid={testId}>
      {choices.map((t) => (
        <option key={t.name} value={t.name}>
          {t.name}
        </option>
      ))}
    </select>
  )
  return (
    <section data-testid="team-replay">
      <h2>Replay with the team's settings</h2>
      <p className="muted">
        The captured statements (queries.sql, most executed first) on a dataset, on the old and the new version, each
        starting with the capture's settings as it takes them.
      </p>
      <div className="toolbar">
        <label className="small">old {select(oldTarget, setOld, 'team-old-target')}</label>
        <label className="small">new {select(newTarget, setNew, 'team-new-target')}</label>
        <label className="small">
          dataset{' '}
          <select style={{ width: 'auto' }} value={dataset} onChange={(e) => setDataset(e.target.value)} data-testid="team-dataset">
            {(datasets.data ?? []).map((d) => (
              <option key={d.name} value={d.name}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="btn btn-primary"
          data-testid="team-replay-start"
          disabled={!dataset || chosen.length < 2 || !settings.data || replay.isPending}
          onClick={() => replay.mutate()}
        >
          Replay on both
        </button>
      </div>
      <ErrorBox error={settings.error ?? replay.error} title="Team settings" testId="team-replay-error" />
      {(settings.data ?? []).map((s) => (
        <TeamSettings key={s.target} settings={s} />
      ))}
    </section>
  )
}
