import type { VariantProbes } from '../../../client'
import { variantColor } from '../../../charts/palette'

const PREFIX = 'wait/synch/mutex/innodb/'

/** Top InnoDB mutex waits per variant, summed over its iterations: wait ms (SUM_TIMER_WAIT) and count. */
export function MutexWaitsTable({ variants }: { variants: VariantProbes[] }) {
  return (
    <div className="chart-card" data-testid="mutex-waits">
      <h3 className="chart-title">Top InnoDB mutex waits per variant (sum over iterations)</h3>
      <table className="data-table">
        <thead>
          <tr>
            <th>Variant</th>
            <th>Instrument ({PREFIX}…)</th>
            <th className="num">Wait (ms)</th>
            <th className="num">Waits</th>
          </tr>
        </thead>
        <tbody>
          {variants.map((v) => {
            const unavailable = v.unavailable.find((u) => u.probe === 'mutex_waits')
            if (unavailable || v.top_mutex_waits.length === 0) {
              return (
                <tr key={v.variant_index}>
                  <td>
                    <span className="swatch" style={{ background: variantColor(v.variant_index) }} />
                    {v.variant}
                  </td>
                  <td colSpan={3} className="muted">
                    {unavailable ? `unavailable: ${unavailable.reason}` : 'no mutex waits recorded yet'}
                  </td>
                </tr>
              )
            }
            return v.top_mutex_waits.map((w, i) => (
              <tr key={`${v.variant_index}-${w.event_name}`} data-testid="mutex-wait-row">
                <td>
                  {i === 0 && (
                    <>
                      <span className="swatch" style={{ background: variantColor(v.variant_index) }} />
                      {v.variant}
                    </>
                  )}
                </td>
                <td title={w.event_name}>{w.event_name.replace(PREFIX, '')}</td>
                <td className="num">{w.wait_ms.toFixed(3)}</td>
                <td className="num">{w.count.toLocaleString()}</td>
              </tr>
            ))
          })}
        </tbody>
      </table>
    </div>
  )
}
