import { describe, expect, it } from 'vitest'
import type { CheckHosts } from '../../client'
import { hostsLine, teamHostOf } from './teamHost'

describe('teamHostOf', () => {
  it('sends only the fields given, memory in MiB, and nothing when both are empty', () => {
    expect(teamHostOf('64', '256')).toEqual({ cpus: 64, memory_mib: 262144 })
    expect(teamHostOf('', '0.5')).toEqual({ memory_mib: 512 })
    expect(teamHostOf(' ', '')).toBeNull()
    expect(teamHostOf('0', '')).toEqual({ cpus: 0 }) // the API refuses it, naming team_host.cpus
  })
})

describe('hostsLine', () => {
  it('names both hosts, saying what is not known', () => {
    const hosts = {
      team: { cpus: 64, memory_mib: null, cpus_from: 'given', memory_from: 'not known' },
      lab: { cpus: 2, memory_mib: 24105, cpus_from: 'the lab host', memory_from: 'the lab host' },
    } as CheckHosts
    expect(hostsLine(hosts)).toBe("team's host: 64 CPUs, memory not known · lab's host: 2 CPUs, 23.5 GiB")
  })
})
