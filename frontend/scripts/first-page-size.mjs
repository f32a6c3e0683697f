#!/usr/bin/env node
// The first page's JavaScript, measured from the production build: at most 120 kB gzip (issue 32).
//
// Why 120 kB: web.dev's "Performance budgets 101" sets < 170 KB of compressed critical-path resources
// for < 5 s to interactive on a real-world baseline device on 3G (Alex Russell's "Can You Afford It?",
// where the budget shrinks toward 130 KB the more of it is JavaScript): 120 kB of JavaScript leaves
// 50 kB for the HTML, the CSS and the first API answers.
//
// Reads the Vite manifest of `npm run build` (dist/.vite/manifest.json). A first page is the entry chunk
// with its static imports plus one lazily loaded page with its static imports, each chunk counted once:
// the runs list (what `/` and `/runs` show a signed-in user) and the sign-in page (what they show anyone
// else). Dynamic imports are not followed: the browser loads them only when another page is opened.
// Each JavaScript file is gzipped on its own (node's zlib, level 9: what a server precompressing static
// files, or Starlette's GZipMiddleware by default, sends), as a browser fetches it.
//
// Usage: node scripts/first-page-size.mjs [--limit-kb N]   (default 120 gzip kB; kB = 1000 bytes, as
// Vite prints). Prints one line per chunk (minified and gzip bytes) and each page's total; exits 1 when
// a page is over the limit or any built chunk carries a test hook (`__upgradelab...`: tests record the
// stream from Playwright instead), 2 when dist/ or the manifest is missing or a page is not a chunk.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { constants, gzipSync } from 'node:zlib'

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')
// The pages `/` and `/runs` can open on (App.tsx), by their source path (the manifest's keys).
const FIRST_PAGES = {
  'runs list': 'src/pages/RunsPage/RunsPage.tsx',
  'sign-in': 'src/pages/LoginPage/LoginPage.tsx',
}

const args = process.argv.slice(2)
const at = args.indexOf('--limit-kb')
const limitKb = at >= 0 ? Number(args[at + 1]) : 120
if (!Number.isFinite(limitKb) || limitKb <= 0) {
  console.error(`--limit-kb: expected a positive number of gzip kB, got ${JSON.stringify(args[at + 1])}`)
  process.exit(2)
}

let manifest
try {
  manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'))
} catch (error) {
  console.error(`no Vite manifest in ${dist} (build first: npm run build): ${error.message}`)
  process.exit(2)
}

const entries = Object.keys(manifest).filter((key) => manifest[key].isEntry)
if (entries.length !== 1) {
  console.error(`expected one entry chunk in the manifest, found ${entries.length}: ${entries.join(', ')}`)
  process.exit(2)
}

/** The manifest keys of `keys` and of every chunk they import statically, each once. */
function staticClosure(keys) {
  const seen = new Set()
  const follow = (key) => {
    if (seen.has(key)) return
    seen.add(key)
    for (const imported of manifest[key].imports ?? []) follow(imported)
  }
  keys.forEach(follow)
  return seen
}

const kb = (bytes) => (bytes / 1000).toFixed(1).padStart(7) + ' kB'
let failed = false
for (const [page, source] of Object.entries(FIRST_PAGES)) {
  if (!manifest[source]) {
    console.error(`the ${page} page (${source}) is not a chunk of its own in the manifest`)
    process.exit(2)
  }
  const rows = []
  for (const key of staticClosure([entries[0], source])) {
    const file = manifest[key].file
    if (!file.endsWith('.js')) continue
    const code = readFileSync(join(dist, file))
    rows.push({ file, minified: code.length, gzip: gzipSync(code, { level: constants.Z_BEST_COMPRESSION }).length })
  }
  rows.sort((a, b) => b.gzip - a.gzip)
  console.log(`${page} page: minified, gzip`)
  for (const row of rows) console.log(`${kb(row.minified)} ${kb(row.gzip)}  ${row.file}`)
  const minified = rows.reduce((sum, row) => sum + row.minified, 0)
  const gzip = rows.reduce((sum, row) => sum + row.gzip, 0)
  console.log(`${kb(minified)} ${kb(gzip)}  ${page} page, limit ${limitKb} kB gzip`)
  if (gzip > limitKb * 1000) {
    console.error(`the ${page} page loads ${(gzip / 1000).toFixed(1)} kB gzip of JavaScript, over ${limitKb} kB`)
    failed = true
  }
}

const hooked = readdirSync(join(dist, 'assets')).filter(
  (name) => name.endsWith('.js') && readFileSync(join(dist, 'assets', name), 'utf8').includes('__upgradelab'),
)
if (hooked.length > 0) {
  console.error(`test hooks (__upgradelab) in the production build: ${hooked.join(', ')}`)
  failed = true
}
if (failed) process.exit(1)
