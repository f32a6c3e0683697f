import { describe, expect, it } from 'vitest'
import { formatDuration, formatMs, formatRatio, formatSeconds } from './format'

describe('number formatting with units', () => {
  it('gives seconds below a minute with one decimal and the unit', () => {
    expect(formatSeconds(0)).toBe('0.0 s')
    expect(formatSeconds(59.94)).toBe('59.9 s')
  })

  it('switches to minutes and hours past a minute', () => {
    expect(formatSeconds(60)).toBe('1m 0s')
    expect(formatSeconds(3725)).toBe('1h 2m 5s')
  })

  it('gives milliseconds from seconds: two decimals below 100 ms, none above', () => {
    expect(formatMs(0.0531)).toBe('53.10')
    expect(formatMs(0.25)).toBe('250')
    expect(formatMs(null)).toBe('-')
  })

  it('writes ratios with an x and a dash for none', () => {
    expect(formatRatio(1.234)).toBe('1.23x')
    expect(formatRatio(null)).toBe('-')
  })

  it('measures a duration until now when it has no end, and never negative', () => {
    const start = '2026-01-01T00:00:00Z'
    expect(formatDuration(start, null, Date.parse(start) + 90_000)).toBe('1m 30s')
    expect(formatDuration(start, '2025-12-31T23:59:00Z')).toBe('0.0 s')
    expect(formatDuration(null, null)).toBe('-')
  })
})
