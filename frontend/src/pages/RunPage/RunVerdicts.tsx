import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { ErrorBox } from '../../components/ErrorBox'
import { ComparisonControls } from '../../components/ComparisonControls'
import { ComparisonTable } from '../../components/ComparisonTable'
import { RoundsChart } from '../../components/RoundsChart'
import { DEFAULT_SETTINGS, verdictsQuery, type ComparisonSettings } from '../../queries/compare'

/** The run's variants against a baseline (a finished run): the verdicts first (ratios with intervals, the
 * A/A floor and the smallest detectable change), then the rounds chart they rest on, round by round. */
export function RunVerdicts({ runId }: { runId: number }) {
  const [settings, setSettings] = useState<ComparisonSettings>(DEFAULT_SETTINGS)
  const comparison = useQuery({ ...verdictsQuery(runId, settings), placeholderData: keepPreviousData })
  return (
    <section data-testid="run-verdicts">
      <h2>Comparison</h2>
      <ComparisonControls settings={settings} onChange={setSettings} comparison={comparison.data} />
      <ErrorBox error={comparison.error} title="Could not compare" />
      {comparison.data && (
        <div className="table-box">
          <ComparisonTable comparison={comparison.data} />
        </div>
      )}
      {comparison.data && <RoundsChart comparison={comparison.data} pngName={`run-${runId}-rounds`} />}
    </section>
  )
}
