// Pure helpers for the variant rows of the run and replay forms: rows, presets, option parsing.
import type { OptionMap, Preset, Target } from '../../api/models'
import type { VariantSpec } from '../../client'

export interface VariantRowState {
  key: number
  target: string
  preset: string
  name: string
  optionsText: string
  /** SET GLOBAL lines, name=value (optional so rows made elsewhere need not know them). */
  setGlobalText?: string
  /** SET SESSION lines, name=value, applied to the connection that runs the workload or the replay. */
  setSessionText?: string
  /** Instance statements, one per line (e.g. ALTER INSTANCE DISABLE INNODB REDO_LOG). */
  instanceText?: string
}

/** Preset combinations offered on top of the workload's own presets. */
export const PRESET_COMBINATIONS = ['redo-off+skip-log-bin', 'skip-log-bin+log-writer-threads-off']

export interface PresetChoice {
  name: string
  description: string
  /** Flavors that support every part; null when unknown. */
  flavors: string[] | null
}

/** The workload's presets plus the combinations, each with a composed description. */
export function presetChoices(presets: Preset[]): PresetChoice[] {
  const byName = new Map(presets.map((p) => [p.name, p]))
  const choices: PresetChoice[] = presets.map((p) => ({
    name: p.name,
    description: p.description,
    flavors: p.flavors,
  }))
  for (const combo of PRESET_COMBINATIONS) {
    if (byName.has(combo)) continue
    const parts = combo.split('+').map((n) => byName.get(n))
    const known = parts.filter((p): p is Preset => p !== undefined)
    const description =
      known.length === parts.length
        ? known.map((p) => p.description).join(' + ')
        : `Combination: ${combo.split('+').join(' + ')}`
    let flavors: string[] | null = null
    if (known.length === parts.length && known.length > 0) {
      flavors = known.reduce<string[]>(
        (acc, p) => acc.filter((f) => p.flavors.includes(f)),
        known[0].flavors,
      )
    }
    choices.push({ name: combo, description, flavors })
  }
  return choices
}

/** Why this preset can't run on this target's flavor, or null if it can (or we can't tell). */
export function flavorWarning(choice: PresetChoice | undefined, target: Target | undefined): string | null {
  if (!choice || !target || choice.flavors === null) return null
  if (choice.flavors.includes(target.flavor)) return null
  const supported = choice.flavors.length ? choice.flavors.join(', ') : 'no flavor'
  return `Preset "${choice.name}" is for ${supported} only; ${target.name} is ${target.flavor}.`
}

/**
 * Parse the options textarea: one `name=value` or bare `name` per line.
 * Blank lines are ignored; a bare name maps to null.
 */
export function parseOptions(text: string): OptionMap {
  const out: OptionMap = {}
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (!line) continue
    const eq = line.indexOf('=')
    if (eq === -1) {
      out[line] = null
    } else {
      out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim()
    }
  }
  return out
}

/**
 * Parse a SET textarea: one `name=value` per line. A line without `=` is sent with an empty value,
 * so the server's validation names it instead of the line silently disappearing.
 */
export function parseSettings(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(parseOptions(text))) out[name] = value ?? ''
  return out
}

export function toVariantSpec(row: VariantRowState): VariantSpec {
  const spec: VariantSpec = { target: row.target, preset: row.preset || 'default' }
  const name = row.name.trim()
  if (name) spec.name = name
  const options = parseOptions(row.optionsText)
  if (Object.keys(options).length > 0) spec.options = options
  const setGlobal = parseSettings(row.setGlobalText ?? '')
  if (Object.keys(setGlobal).length > 0) spec.set_global = setGlobal
  const setSession = parseSettings(row.setSessionText ?? '')
  if (Object.keys(setSession).length > 0) spec.set_session = setSession
  const instance = (row.instanceText ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
  if (instance.length > 0) spec.instance = instance
  return spec
}

export function targetLabel(t: Target): string {
  return t.version ? `${t.name} (${t.flavor} ${t.version})` : `${t.name} (${t.flavor})`
}
