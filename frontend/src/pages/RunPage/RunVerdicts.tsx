import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api/client'
import { ErrorBox } from '../../components/ErrorBox'
import { ComparisonControls, type ComparisonSettings } from '../ComparePage/ComparisonControls'
import { ComparisonTable } from '../ComparePage/ComparisonTable'
import { RoundsChart } from './RoundsChart'

/** The verdict table's query as the section first asks it (stored at run end for a finished run). */
export const DEFAULT_SETTINGS: ComparisonSettings = { baseline: null, warmup: 0, threshold: 0.05 }

/** Query key and function of the comparison table of `runId` at `settings` (RunPage prefetches the
 * default one as soon as it knows the run is final, before the charts render). */
export function verdictsQuery(runId: number, settings: ComparisonSettings) {
  return {
    queryKey: ['compare', [runId], settings, 'table'],
    queryFn: () => api.compare({ runs: [runId], ...settings }, false),
  }
}

/** The run's variants against a baseline, round by round: the rounds chart, ratios with intervals, verdicts,
 * the A/A floor and the smallest detectable change (a finished run). */
export function RunVerdicts({ runId }: { runId: number }) {
  const [settings, setSettings] = useState<ComparisonSettings>(DEFAULT_SETTINGS)
  const comparison = useQuery({ ...verdictsQuery(runId, settings), placeholderData: keepPreviousData })
  return (
    <section data-testid="run-verdicts">
      <h2>Comparison</h2>
      <ComparisonControls settings={settings} onChange={setSettings} comparison={comparison.data} />
      <ErrorBox error={comparison.error} title="Could not compare" />
      {comparison.data && <RoundsChart comparison={comparison.data} pngName={`run-${runId}-rounds`} />}
      {comparison.data && <ComparisonTable comparison={comparison.data} />}
    </section>
  )
}
