import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useSearchParams } from 'react-router-dom'
import { api, comparisonParams } from '../../api/client'
import { comparisonSeries } from '../../charts/comparisonSeries'
import { ComparisonControls } from '../../components/ComparisonControls'
import { ComparisonTable } from '../../components/ComparisonTable'
import { ErrorBox } from '../../components/ErrorBox'
import { IterationChart } from '../../components/IterationChart'
import { RoundsChart } from '../../components/RoundsChart'
import { comparisonQuery, type ComparisonSettings } from '../../queries/compare'

function parseRuns(text: string): number[] {
  return text
    .split(/[\s,]+/)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0)
}

/** Variants of one run, or of several runs, side by side with ratios, intervals and verdicts. */
export function ComparePage() {
  const [params, setParams] = useSearchParams()
  const runs = parseRuns(params.get('runs') ?? '')
  const [draft, setDraft] = useState(runs.join(', '))
  const [settings, setSettings] = useState<ComparisonSettings>({
    baseline: params.get('baseline'),
    warmup: Number(params.get('warmup') ?? 0) || 0,
    threshold: Number(params.get('threshold') ?? 0.05) || 0.05,
  })
  const query = { runs, ...settings }
  const comparison = useQuery({
    ...comparisonQuery(runs, settings, true),
    enabled: runs.length > 0,
    placeholderData: keepPreviousData,
  })
  const share = useMutation({ mutationFn: () => api.createShare({ kind: 'comparison', comparison: query }) })
  const maxIterations = Math.max(1, ...(comparison.data?.rows ?? []).map((r) => r.iterations + settings.warmup))
  return (
    <div className="page" data-testid="compare-page">
      <h1>Compare</h1>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault()
          setSettings({ ...settings, baseline: null })
          setParams({ runs: parseRuns(draft).join(',') })
        }}
      >
        <label>
          Runs (ids, comma-separated)
          <input data-testid="compare-runs" value={draft} onChange={(e) => setDraft(e.target.value)} />
        </label>
        <button type="submit" className="btn btn-primary btn-small">
          Compare
        </button>
      </form>
      {runs.length > 0 && (
        <>
          <ComparisonControls settings={settings} onChange={setSettings} comparison={comparison.data} />
          <ErrorBox error={comparison.error} title="Could not compare" />
          {comparison.data && (
            <>
              <div className="toolbar">
                <a className="btn btn-secondary btn-small" href={`/api/compare/export?${comparisonParams(query)}&format=csv`}>
                  CSV
                </a>
                <a className="btn btn-secondary btn-small" href={`/api/compare/export?${comparisonParams(query)}&format=json`}>
                  JSON
                </a>
                <button type="button" className="btn btn-secondary btn-small" data-testid="compare-share" onClick={() => share.mutate()}>
                  Share link
                </button>
                {share.data && (
                  <input readOnly size={60} data-testid="compare-share-url" value={`${window.location.origin}${share.data.path}`} />
                )}
              </div>
              <ComparisonTable comparison={comparison.data} />
              <IterationChart
                series={comparisonSeries(comparison.data)}
                iterations={maxIterations}
                pngName={`compare-${runs.join('-')}`}
              />
              {/* per-round medians: across runs the rounds are not paired (Welch's t), only drawn side by side */}
              <RoundsChart comparison={comparison.data} />
            </>
          )}
        </>
      )}
    </div>
  )
}
