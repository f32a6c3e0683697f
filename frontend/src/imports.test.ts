import { describe, expect, it } from 'vitest'

// Every module of the app as text (Vite reads them at test time): the generated client and the tests
// are left out, a cycle through them would not ship.
const sources = import.meta.glob(['./**/*.ts', './**/*.tsx', '!./client/**', '!./**/*.test.ts', '!./**/*.test.tsx'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>

const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gm

/** The module a relative specifier names from `from` ('./a/b.tsx' + '../c' -> './c.ts(x)' or its index). */
function resolve(from: string, specifier: string): string | null {
  const parts = from.split('/').slice(0, -1)
  for (const part of specifier.split('/')) {
    if (part === '..') parts.pop()
    else if (part !== '.') parts.push(part)
  }
  const base = parts.join('/')
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`])
    if (candidate in sources) return candidate
  return null
}

/** The import cycles among `sources`, each as the modules around it (the first repeated last). */
function importCycles(): string[][] {
  const edges = new Map<string, string[]>()
  for (const [file, text] of Object.entries(sources)) {
    const targets = [...text.matchAll(IMPORT)].map((m) => resolve(file, m[1])).filter((t): t is string => t !== null)
    edges.set(file, targets)
  }
  const cycles: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (file: string) => {
    state.set(file, 'open')
    path.push(file)
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next])
      else if (!state.has(next)) visit(next)
    }
    path.pop()
    state.set(file, 'done')
  }
  for (const file of edges.keys()) if (!state.has(file)) visit(file)
  return cycles
}

describe('the modules of the app', () => {
  it('read every page', () => {
    expect(Object.keys(sources)).toContain('./pages/RunsPage/RunsPage.tsx')
    expect(Object.keys(sources).length).toBeGreaterThan(100)
  })

  it('import one another without a cycle', () => {
    expect(importCycles()).toEqual([])
  })
})
