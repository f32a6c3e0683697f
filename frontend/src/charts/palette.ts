// Stable colour per variant, keyed by variant_index (not by name), so the
// same slot has the same colour in the chart, legend and summary table.
const PALETTE = [
  '#2563eb', // blue
  '#dc2626', // red
  '#16a34a', // green
  '#d97706', // amber
  '#7c3aed', // violet
  '#0891b2', // cyan
  '#db2777', // pink
  '#4b5563', // slate
  '#65a30d', // lime
  '#9a3412', // brown
]

export function variantColor(variantIndex: number): string {
  const i = ((variantIndex % PALETTE.length) + PALETTE.length) % PALETTE.length
  return PALETTE[i]
}
