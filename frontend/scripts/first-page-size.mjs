#!/usr/bin/env node
// The first page's JavaScript, measured from the production build (issue 13: at most 250 kB minified).
//
// Reads the Vite manifest of `npm run build` (dist/.vite/manifest.json), follows the entry's static
// imports and those of the /runs page's lazy chunk (the page a signed-in user lands on), and sums the
// minified bytes of every JavaScript file reached, each counted once. Dynamic imports are not followed:
// the browser loads them only when another page is opened.
//
// Usage: node scripts/first-page-size.mjs [--limit-kb N]   (default 250; kB = 1000 bytes, as Vite prints)
// Prints one line per chunk and the total; exits 1 above the limit or when any built chunk carries a
// test hook (`__upgradelab...`: tests record the stream from Playwright instead), 2 when dist/ or the
// manifest is missing.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')
const RUNS_PAGE = 'src/pages/RunsPage/RunsPage.tsx'

const args = process.argv.slice(2)
const at = args.indexOf('--limit-kb')
const limitKb = at >= 0 ? Number(args[at + 1]) : 250
if (!Number.isFinite(limitKb) || limitKb <= 0) {
  console.error(`--limit-kb: expected a positive number of kB, got ${JSON.stringify(args[at + 1])}`)
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
if (!manifest[RUNS_PAGE]) {
  console.error(`the /runs page (${RUNS_PAGE}) is not a chunk of its own in the manifest`)
  process.exit(2)
}

// Static imports only, depth first; each chunk once.
const seen = new Set()
function follow(key) {
  if (seen.has(key)) return
  seen.add(key)
  for (const imported of manifest[key].imports ?? []) follow(imported)
}
follow(entries[0])
follow(RUNS_PAGE)

let total = 0
const rows = []
for (const key of seen) {
  const file = manifest[key].file
  if (!file.endsWith('.js')) continue
  const bytes = statSync(join(dist, file)).size
  total += bytes
  rows.push([bytes, file])
}
rows.sort((a, b) => b[0] - a[0])
const kb = (bytes) => (bytes / 1000).toFixed(1).padStart(7) + ' kB'
for (const [bytes, file] of rows) console.log(`${kb(bytes)}  ${file}`)
console.log(`${kb(total)}  first page (/runs), limit ${limitKb} kB`)
let failed = false
if (total > limitKb * 1000) {
  console.error(`the first page loads ${(total / 1000).toFixed(1)} kB of JavaScript, over ${limitKb} kB`)
  failed = true
}
const hooked = readdirSync(join(dist, 'assets')).filter(
  (name) => name.endsWith('.js') && readFileSync(join(dist, 'assets', name), 'utf8').includes('__upgradelab'),
)
if (hooked.length > 0) {
  console.error(`test hooks (__upgradelab) in the production build: ${hooked.join(', ')}`)
  failed = true
}
if (failed) process.exit(1)
