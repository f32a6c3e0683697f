import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api/client'
import { ErrorBox } from '../../components/ErrorBox'
import { DatasetRow } from './DatasetRow'
import { DeletedDatasets } from './DeletedDatasets'
import { UploadForm } from './UploadForm'
import { DATASETS_KEY, datasetsQuery, deletedDatasetsQuery } from '../../queries/datasets'
import { TableHead } from '../../components/Table/Table'

/** /datasets: SQL dumps to load into every variant's server; upload, inspect per target, delete
 * (the replay reports measured on a dataset are kept); the deleted ones listed apart, as records. */
export function DatasetsPage() {
  const queryClient = useQueryClient()
  const datasets = useQuery({ ...datasetsQuery(), refetchInterval: 5000 })
  const [open, setOpen] = useState<string | null>(null)
  const deleted = useQuery({ ...deletedDatasetsQuery(), refetchInterval: 5000 })
  const remove = useMutation({
    mutationFn: api.deleteDataset,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: DATASETS_KEY }),
  })
  return (
    <div className="page">
      <div className="page-header">
        <h1>Datasets</h1>
      </div>
      <p className="muted">
        A dataset is a <code>mysqldump</code> / <code>mariadb-dump</code> file (plain, gzip or zstd). Each variant's
        server loads it with its own client, so <code>DELIMITER</code>, routines, triggers and views load as they do
        for a DBA. Replay queries on it from <a href="/replays">Replays</a>.
      </p>
      <UploadForm onUploaded={() => void queryClient.invalidateQueries({ queryKey: DATASETS_KEY })} />
      <ErrorBox error={datasets.error ?? remove.error} />
      <table className="table" data-testid="datasets-table">
        <TableHead
          columns={[
            'Name', 'Size', 'Compression', 'Database', 'Loaded on',
            { label: 'Reports', title: 'Replay reports measured on it (kept when it is deleted)' }, '',
          ]}
        />
        <tbody>
          {(datasets.data ?? []).map((dataset) => (
            <DatasetRow
              key={dataset.id}
              dataset={dataset}
              open={open === dataset.name}
              onToggle={() => setOpen(open === dataset.name ? null : dataset.name)}
              onDelete={() => remove.mutate(dataset.name)}
            />
          ))}
        </tbody>
      </table>
      {datasets.data?.length === 0 && <p className="muted">No dataset yet.</p>}
      <ErrorBox error={deleted.error} />
      <DeletedDatasets datasets={deleted.data ?? []} />
    </div>
  )
}
