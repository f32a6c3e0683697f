/** What each variant set beyond its target and preset: a replay's variant as stored (ReplayVariantSpec)
 * or as reported (VariantReport.settings) has the same four lists. */
export interface VariantSettingsOf {
  name: string
  options: string[]
  set_global: Record<string, string>
  set_session: Record<string, string>
  instance: string[]
}

/** The parts a variant set, as text ("SET SESSION div_precision_increment=7"); [] when it set nothing. */
export function settingsParts(v: VariantSettingsOf): string[] {
  const pairs = (m: Record<string, string>) => Object.entries(m).map(([k, value]) => `${k}=${value}`)
  return (
    [
      ['options', v.options],
      ['SET GLOBAL', pairs(v.set_global)],
      ['SET SESSION', pairs(v.set_session)],
      ['instance', v.instance],
    ] as const
  )
    .filter(([, items]) => items.length > 0)
    .map(([label, items]) => `${label} ${items.join(', ')}`)
}

/** One line per variant that set anything (nothing rendered when none did). */
export function VariantSettingsList({ variants }: { variants: VariantSettingsOf[] }) {
  const set = variants.map((v) => ({ name: v.name, parts: settingsParts(v) })).filter((v) => v.parts.length > 0)
  if (set.length === 0) return null
  return (
    <ul className="muted" data-testid="variant-settings">
      {set.map((v) => (
        <li key={v.name} data-testid={`variant-settings-${v.name}`}>
          <strong>{v.name}</strong>: {v.parts.join('; ')}
        </li>
      ))}
    </ul>
  )
}
