import type { GroupPoint } from '../client'
import { variantColor } from '../charts/palette'
import { TableHead } from './Table/Table'

const SHOWN = 6

function formatNumber(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3)
}

/** Per variant and group (table, thread count, monitor on/off): iterations, median and metrics. */
export function GroupTable({ points }: { points: GroupPoint[] }) {
  if (points.length === 0 || points.every((p) => p.group === '')) return null
  return (
    <table className="data-table" data-testid="group-table">
      <TableHead columns={['Variant', 'Group', 'Iterations', 'Median (s)', 'Metrics (median)']} />
      <tbody>
        {points.map((p) => {
          const names = Object.keys(p.metrics)
          return (
            <tr key={`${p.variant_index}-${p.group}`}>
              <td>
                <span className="swatch" style={{ background: variantColor(p.variant_index) }} /> {p.variant}
              </td>
              <td>{p.group}</td>
              <td>{p.iterations}</td>
              <td>{p.median_s === null ? '-' : p.median_s.toFixed(4)}</td>
              <td className="small">
                {names
                  .slice(0, SHOWN)
                  .map((n) => `${n} ${formatNumber(p.metrics[n])}`)
                  .join(', ')}
                {names.length > SHOWN ? ` … (+${names.length - SHOWN})` : ''}
              </td>
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}
