import { defineConfig, type Plugin } from 'vitest/config'
import react from '@vitejs/plugin-react'

// Every warning the bundler or a plugin reports during `vite build` (an import that "will always be
// undefined", a chunk over Vite's size limit), printed as usual and counted; the build then fails
// naming them, so a warning cannot pass through install.sh's build unread.
const warnings: string[] = []
const failOnWarnings: Plugin = {
  name: 'upgradelab:fail-on-warnings',
  apply: 'build',
  closeBundle() {
    if (warnings.length > 0)
      throw new Error(`the build printed ${warnings.length} warning(s):\n- ${warnings.join('\n- ')}`)
  },
}

// The built app is served by the FastAPI backend at "/" with SPA fallback.
export default defineConfig({
  base: '/',
  // React 19 itself: no aliases, so the app, its libraries (React Router, TanStack Query, Recharts'
  // react-redux) and Vitest share the one react and react-dom in node_modules.
  plugins: [react(), failOnWarnings],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // dist/.vite/manifest.json: scripts/first-page-size.mjs follows the first page's chunks through it
    // (at most 120 kB gzip). Every page loads lazily (App.tsx); Vite's own warning, on any one chunk
    // over 500 kB minified, stays at its default: the largest, Recharts' (lazy), is about 385 kB.
    manifest: true,
    rolldownOptions: {
      // Rolldown's note that plugins took a share of the build's time is about this machine's load,
      // not the bundle: off, so that it neither clutters the output nor reads as a warning to fix.
      checks: { bundlerTimings: false },
      onwarn(warning, print) {
        warnings.push(warning.message)
        print(warning)
      },
    },
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8700',
    },
  },
  // `npm test`: the logic that lives only in the browser, in jsdom (*.test.ts beside the code).
  test: {
    environment: 'jsdom',
    // One jsdom per worker, not per test file: 35 files took 52 s (29 s of it making environments, 44
    // CPU-s beside pytest in the test command), 4 s this way. The files share no module state, and the
    // globals a test stubs (fetch, EventSource) are put back after each test.
    isolate: false,
    unstubGlobals: true,
    include: ['src/**/*.test.{ts,tsx}'],
  },
})
