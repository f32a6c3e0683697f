import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api/client'
import { ErrorBox } from '../../components/ErrorBox'
import { ComparisonControls, type ComparisonSettings } from '../ComparePage/ComparisonControls'
import { ComparisonTable } from '../ComparePage/ComparisonTable'
import { RoundsChart } from './RoundsChart'

/** The run's variants against a baseline, round by round: the rounds chart, ratios with intervals, verdicts,
 * the A/A floor and the smallest detectable change (a finished run). */
export function RunVerdicts({ runId }: { runId: number }) {
  const [settings, setSettings] = useState<ComparisonSettings>({ baseline: null, warmup: 0, threshold: 0.05 })
  const comparison = useQuery({
    queryKey: ['compare', [runId], settings, 'table'],
    queryFn: () => api.compare({ runs: [runId], ...settings }, false),
    placeholderData: keepPreviousData,
  })
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
