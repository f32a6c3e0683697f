import { defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'

// The built app is served by the FastAPI backend at "/" with SPA fallback.
export default defineConfig({
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // One local tool page; Recharts makes the single bundle ~700 kB, which is fine here.
    chunkSizeWarningLimit: 1000,
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
  },
})
