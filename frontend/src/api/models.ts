// Names the UI uses for generated types (src/client/types.gen.ts), and the inline enums the schema
// has no component for, read off the fields that carry them. Nothing here restates a shape.
import { FinalRunStatus } from '../client'
import type { ExperimentRead, RunStatus, VariantSpec, WorkloadRead } from '../client'

export type {
  RunRead as Run,
  TargetRead as Target,
  WorkloadRead as Workload,
  PresetRead as Preset,
  PublishedFigureRead as PublishedFigure,
  RunProgress as DatasetProgress,
  DatasetRead as Dataset,
} from '../client'

export type Policy = WorkloadRead['default_policy']
export type ScheduleKind = ExperimentRead['schedule']
export type OptionMap = NonNullable<VariantSpec['options']>

/** The statuses a run never leaves, from the backend's one definition (OpenAPI FinalRunStatus). */
export const FINAL_STATUSES: readonly RunStatus[] = Object.values(FinalRunStatus)

export function isFinal(status: RunStatus): boolean {
  return FINAL_STATUSES.includes(status)
}
