import { defineConfig } from 'vitest/config'
import preact from '@preact/preset-vite'

// The built app is served by the FastAPI backend at "/" with SPA fallback.
export default defineConfig({
  base: '/',
  // Preact's preset aliases react, react-dom, react-dom/client and react/jsx-runtime to preact/compat
  // (and react-dom/test-utils to preact/test-utils): react-dom alone was 210 kB of the first page's
  // 320 kB, compat is about 12 kB. Types still come from @types/react: compat implements that API.
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // dist/.vite/manifest.json: scripts/first-page-size.mjs follows the first page's chunks through it.
    manifest: true,
    // Pages load lazily (App.tsx). The first page's own limit (250 kB) is checked by that script;
    // this warns on any single chunk past it, lazy ones too (Recharts' chunk is larger).
    chunkSizeWarningLimit: 250,
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8700',
    },
  },
  // `npm test`: the logic that lives only in the browser, in jsdom (*.test.ts beside the code).
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    // Testing Library's ES module build, so that Vite resolves its react / react-dom imports through
    // preact/compat's aliases; its CommonJS build (package "main") would require real React, whose
    // renderer cannot run Preact hooks ("Cannot read properties of undefined (reading '__H')").
    alias: { '@testing-library/react': '@testing-library/react/dist/@testing-library/react.esm.js' },
    // Pages rendered in a test (queries/runs.test.tsx) use TanStack Query's hooks: run through Vite, not
    // Node, so its react imports take the same preact/compat aliases as the page's.
    server: { deps: { inline: ['@tanstack/react-query'] } },
  },
})
