// Names the UI uses for generated types (src/client/types.gen.ts), and the inline enums the schema
// has no component for, read off the fields that carry them. Nothing here restates a shape.
import { FinalJobStatus } from '../client'
import type { ExperimentRead, JobStatus, VariantSpec, WorkloadRead } from '../client'

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

/** The statuses a job (run, replay, attribution) never leaves, from the backend's one definition
 * (OpenAPI FinalJobStatus): polling and streaming stop there. */
export const FINAL_STATUSES: readonly JobStatus[] = Object.values(FinalJobStatus)

export function isFinal(status: JobStatus): boolean {
  return FINAL_STATUSES.includes(status)
}
