// The iteration chart's width in pixels, known before the chart exists: the run page asks the API for
// series downsampled to it (backend results/stats/downsample.py). Kept apart from downsample.ts so the boot
// preload (pages/RunPage/preload.ts, queries/runs.ts) does not pull the LTTB library into the first page.

// 1 point per pixel: LTTB keeps each pixel's most significant point; 2 doubled the chart's render time
// (bench/open_large_run.py) without a visible difference at 1.5 px lines
export const POINTS_PER_PIXEL = 1
// main's max-width (styles.css) less its padding, the y axis and the chart's margins
const MAX_MAIN_PX = 1152
const AXES_PX = 112

/** The iteration chart's plot width in pixels at the current window width (the page asks the API for
 * this width before the chart exists). */
export function chartWidth(): number {
  const main = Math.min(window.innerWidth, MAX_MAIN_PX)
  return Math.max(100, main - AXES_PX)
}

/** The points a chart of `width` pixels draws per series. */
export function pointBudget(width = chartWidth()): number {
  return POINTS_PER_PIXEL * width
}
