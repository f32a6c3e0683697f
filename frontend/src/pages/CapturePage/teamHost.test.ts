import { describe, expect, it } from 'vitest'
import type { CheckHosts } from '../../client'
import { hostsLine, hostsUse, teamHostOf } from './teamHost'

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

describe('hostsUse', () => {
  it('says where each of the team figures came from and which defaults read it', () => {
    const hosts = {
      team: { cpus: 16, memory_mib: 65536, cpus_from: "given on the check, in place of the capture's 2", memory_from: 'given on the check' },
      lab: { cpus: 2, memory_mib: 24105, cpus_from: 'the lab host', memory_from: 'the lab host' },
      cpus_used_by: ['innodb_purge_threads', 'innodb_read_io_threads'],
      memory_used_by: [],
    } as CheckHosts
    expect(hostsUse(hosts)).toBe(
      "Team's CPUs: given on the check, in place of the capture's 2; used by innodb_purge_threads, innodb_read_io_threads. " +
        "Team's memory: given on the check; used by no default of this check.",
    )
  })
})
