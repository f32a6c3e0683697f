import { defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'

// The built app is served by the FastAPI backend at "/" with SPA fallback.
export default defineConfig({
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Pages load lazily (App.tsx); the first page's JavaScript stays under 250 kB, so warn past it.
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
  },
})
