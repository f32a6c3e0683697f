import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api/client'
import type { Run } from '../../api/models'
import { ErrorBox } from '../../components/ErrorBox'
import { RUN_LISTS_KEY, runResultsQuery } from '../../queries/runs'

/** Name and notes of a run, editable. */
export function RunNotes({ run }: { run: Run }) {
  const queryClient = useQueryClient()
  const [name, setName] = useState(run.name)
  const [notes, setNotes] = useState(run.notes ?? '')
  const save = useMutation({
    mutationFn: () => api.updateRun(run.id, { name, notes }),
    onSuccess: () => {
      void queryClient.invalidateQueries(runResultsQuery(run.id))
      void queryClient.invalidateQueries({ queryKey: RUN_LISTS_KEY })
    },
  })
  return (
    <section className="form-section" data-testid="run-notes">
      <h2>Name and notes</h2>
      <div className="field">
        <label htmlFor="run-name-input">Name</label>
        <input id="run-name-input" data-testid="run-name-input" value={name} onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="run-notes-input">Notes</label>
        <textarea
          id="run-notes-input"
          className="notes-box"
          data-testid="run-notes-input"
          value={notes}
          onChange={(e) => setNotes(e.target.value)}
        />
      </div>
      <button type="button" className="btn btn-primary btn-small" data-testid="run-notes-save" onClick={() => save.mutate()}>
        {save.isPending ? 'Saving…' : 'Save'}
      </button>
      {save.isSuccess && <span className="muted" data-testid="run-notes-saved"> saved</span>}
      <ErrorBox error={save.error} title="Could not save" />
    </section>
  )
}
