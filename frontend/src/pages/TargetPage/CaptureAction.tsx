import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useNavigate } from 'react-router-dom'
import { capturesApi } from '../../api/captures'
import { ErrorBox } from '../../components/ErrorBox'
import { CapturesTable } from '../../components/CapturesTable'
import { PendingButton } from '../../components/PendingButton'

/** "Capture": read this target's configuration, accounts and workload (an existing server only
 * read; a server the lab runs is started for it and stopped after), then open the capture's page.
 * The dump it is to hold: schema and data (up to a limit) or the schema only. */
export function CaptureAction({ target, mayAct }: { target: string; mayAct: boolean }) {
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const [schemaOnly, setSchemaOnly] = useState(false)
  const [limit, setLimit] = useState('')
  const create = useMutation({
    mutationFn: () =>
      capturesApi.create({
        target,
        schema_only: schemaOnly,
        data_limit_mb: schemaOnly || limit.trim() === '' ? null : Number(limit),
      }),
    onSuccess: (capture) => {
      void queryClient.invalidateQueries({ queryKey: ['captures'] })
      void navigate(`/captures/${capture.id}`)
    },
  })
  return (
    <section data-testid="target-captures">
      <h2>Captures</h2>
      <p className="muted">
        What this server runs with: its variables against its version's defaults, its accounts and plugins, its statement
        digests as a query set; then check them against a new version.
      </p>
      {mayAct && (
        <div className="toolbar">
          <PendingButton pending={create.isPending} busy="Capturing…" className="btn btn-primary" testId="capture-start" onClick={() => create.mutate()}>
            Capture
          </PendingButton>
          <label className="small">
            <input type="checkbox" checked={schemaOnly} onChange={(e) => setSchemaOnly(e.target.checked)} /> schema only
          </label>
          {!schemaOnly && (
            <label className="small">
              data up to{' '}
              <input
                type="number"
                min={1}
                style={{ width: '6rem' }}
                value={limit}
                placeholder="all"
                onChange={(e) => setLimit(e.target.value)}
                data-testid="capture-data-limit"
              />{' '}
              MiB
            </label>
          )}
        </div>
      )}
      <ErrorBox error={create.error} title="Capture refused" testId="capture-start-error" />
      <CapturesTable target={target} />
    </section>
  )
}
