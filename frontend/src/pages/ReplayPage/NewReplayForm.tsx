import { useMutation, useQuery } from '@tanstack/react-query'
import { useMemo, useRef, useState } from 'react'
import { useNavigate } from 'react-router-dom'
import { api } from '../../api/client'
import { concurrentReplaysApi, logFormat } from '../../api/concurrentReplays'
import type { Target } from '../../api/models'
import { ErrorBox } from '../../components/ErrorBox'
import { datasetsQuery } from '../../queries/datasets'
import { targetsQuery } from '../../queries/targets'
import { workloadsQuery } from '../../queries/workloads'
import { VariantRow } from '../../components/VariantRow/VariantRow'
import { presetChoices, toVariantSpec, type VariantRowState } from '../../components/VariantRow/variants'

/** A new variant row: on `target`, else the first server the lab runs itself (an existing server is
 * chosen on purpose), the default preset, nothing set. */
function newReplayRow(key: number, targets: Target[], target?: string): VariantRowState {
  const own = targets.find((t) => t.provisioner !== 'existing') ?? targets[0]
  return { key, target: target ?? own?.name ?? '', preset: 'default', name: '', optionsText: '' }
}

/** Dataset, query file (plain SQL, slow log or general log), variants in baseline-first order: the
 * run form's variant rows (target, preset, name, startup options, SET GLOBAL, SET SESSION, instance
 * statements), sent as the API's variant specs. */
export function NewReplayForm() {
  const navigate = useNavigate()
  const datasets = useQuery(datasetsQuery())
  const targets = useQuery(targetsQuery())
  // the presets are the same for every template (experiments/variants.py PRESETS)
  const workloads = useQuery(workloadsQuery())
  const presets = useMemo(() => presetChoices(workloads.data?.[0]?.presets ?? []), [workloads.data])
  const [dataset, setDataset] = useState('')
  const [queries, setQueries] = useState('')
  const [fileName, setFileName] = useState('')
  // null until the targets are known: then one row, the baseline
  const [rows, setRows] = useState<VariantRowState[] | null>(null)
  const nextKey = useRef(2)
  const shown = rows ?? (targets.data ? [newReplayRow(1, targets.data)] : [])
  // the API's defaults (backend/upgradelab/replay/schemas.py DEFAULT_ROUNDS, DEFAULT_PASSES)
  const [rounds, setRounds] = useState(20)
  const [passes, setPasses] = useState(2)
  // empty: the API's default, 3 x the rounds (schemas.py EXTENSION_FACTOR); equal to rounds: no extension
  const [maxRounds, setMaxRounds] = useState('')
  const [aaControl, setAaControl] = useState(false)
  const [sample, setSample] = useState(10)
  const [allowWrites, setAllowWrites] = useState(false)
  const [statementTimeout, setStatementTimeout] = useState(30)
  // concurrent: the log's sessions together, writes included, each trial from the same data
  // (backend concurrent_replay/; `speed` 1 as recorded, 0 as fast as possible)
  const [concurrent, setConcurrent] = useState(false)
  const [speed, setSpeed] = useState(1)
  const create = useMutation({
    mutationFn: api.createReplay,
    onSuccess: (replay) => navigate(`/replays/${replay.id}`),
  })
  const createConcurrent = useMutation({
    mutationFn: concurrentReplaysApi.create,
    onSuccess: (job) => navigate(`/concurrent-replays/${job.id}`),
  })
  const chosen = dataset || datasets.data?.[0]?.name || ''

  function updateRow(key: number, patch: Partial<VariantRowState>) {
    setRows(shown.map((r) => (r.key === key ? { ...r, ...patch } : r)))
  }

  function addRow() {
    const last = shown[shown.length - 1]
    setRows([...shown, newReplayRow(nextKey.current++, targets.data ?? [], last?.target)])
  }

  return (
    <form
      className="card"
      data-testid="new-replay"
      onSubmit={(e) => {
        e.preventDefault()
        if (concurrent) {
          createConcurrent.mutate({
            dataset: chosen,
            log: queries,
            format: logFormat(queries),
            variants: shown.map(toVariantSpec),
            rounds,
            speed,
            statement_timeout_s: statementTimeout,
            aa_control: aaControl,
          })
          return
        }
        create.mutate({
          dataset: chosen,
          queries,
          variants: shown.map(toVariantSpec),
          rounds,
          passes,
          max_rounds: maxRounds === '' ? null : Number(maxRounds),
          sample,
          allow_writes: allowWrites,
          aa_control: aaControl,
          statement_timeout_s: statementTimeout,
        })
      }}
    >
      <label>
        Dataset{' '}
        <select name="dataset" value={chosen} onChange={(e) => setDataset(e.target.value)}>
          {(datasets.data ?? []).map((d) => (
            <option key={d.name}>{d.name}</option>
          ))}
        </select>
      </label>{' '}
      <label>
        Queries (SQL file, slow log or general log){' '}
        <input
          name="queries-file"
          type="file"
          onChange={(e) => {
            const file = e.target.files?.[0]
            if (file) {
              setFileName(file.name)
              void file.text().then(setQueries)
            }
          }}
        />
      </label>
      {fileName && <span className="muted"> {queries.length.toLocaleString()} characters read</span>}
      <fieldset data-testid="replay-variants">
        <legend>Variants (the first is the baseline; each on a server instance of its own)</legend>
        {shown.map((row, index) => (
          <VariantRow
            key={row.key}
            index={index}
            row={row}
            targets={targets.data ?? []}
            presets={presets}
            onChange={(patch) => updateRow(row.key, patch)}
            onRemove={() => setRows(shown.filter((r) => r.key !== row.key))}
          />
        ))}
        <button type="button" className="btn btn-secondary" data-testid="add-variant" onClick={addRow}>
          + Add variant
        </button>
      </fieldset>
      <label>
        Rounds{' '}
        <input name="rounds" type="number" min={1} value={rounds} onChange={(e) => setRounds(Number(e.target.value))} />
      </label>{' '}
      <label title="Each round times every sampled statement this many times on each variant, the variants taking turns pass by pass.">
        Passes per round{' '}
        <input name="passes" type="number" min={1} value={passes} onChange={(e) => setPasses(Number(e.target.value))} />
      </label>{' '}
      <label title="Fingerprints still undecided after the rounds (neither same, slower nor faster) get more rounds, 5 at a time, up to this many in all; the decided ones are not timed again. Equal to the rounds: no extension.">
        Max rounds{' '}
        <input
          name="max-rounds"
          type="number"
          min={rounds}
          placeholder={`${rounds * 3}`}
          value={maxRounds}
          onChange={(e) => setMaxRounds(e.target.value)}
        />
      </label>{' '}
      <label>
        Per fingerprint <input name="sample" type="number" min={1} value={sample} onChange={(e) => setSample(Number(e.target.value))} />
      </label>{' '}
      <label title="A statement still running after this many seconds is ended and reported as timed out.">
        Statement timeout (s){' '}
        <input
          name="statement-timeout"
          type="number"
          min={0.1}
          max={3600}
          step="any"
          value={statementTimeout}
          onChange={(e) => setStatementTimeout(Number(e.target.value))}
        />
      </label>{' '}
      <label>
        <input type="checkbox" checked={allowWrites} onChange={(e) => setAllowWrites(e.target.checked)} /> Replay writes
        too (disposable targets only)
      </label>{' '}
      <label title="A second instance of the baseline: each fingerprint's noise floor; a slower or faster verdict must clear it.">
        <input type="checkbox" name="aa-control" checked={aaControl} onChange={(e) => setAaControl(e.target.checked)} /> A/A
        control
      </label>{' '}
      <label title="The log's sessions replayed together, each on its own connection, writes included, every trial from a copy of the same loaded data (disposable lab targets; a general log or a slow log with long_query_time=0; Rounds: trials per variant).">
        <input type="checkbox" name="concurrent" checked={concurrent} onChange={(e) => setConcurrent(e.target.checked)} />{' '}
        Concurrent (sessions together)
      </label>{' '}
      {concurrent && (
        <label title="The gaps between a session's statements: 1 as recorded, 2 twice as fast, 0 as fast as possible.">
          Speed{' '}
          <input name="speed" type="number" min={0} step="any" value={speed} onChange={(e) => setSpeed(Number(e.target.value))} />
        </label>
      )}{' '}
      <button
        type="submit"
        className="btn btn-primary"
        disabled={!chosen || !queries || shown.length === 0 || shown.some((r) => !r.target) || create.isPending || createConcurrent.isPending}
      >
        Replay
      </button>
      <ErrorBox error={create.error ?? createConcurrent.error} title="Replay refused" testId="replay-error" />
    </form>
  )
}
