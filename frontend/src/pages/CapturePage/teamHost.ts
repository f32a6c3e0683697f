// The team's server's hardware as a check request takes it (CheckCreate.team_host: the API bounds and
// names a refused field) and as a check shows it back with the lab host's (CheckRead.hosts).
import type { CheckHosts, Host, TeamHost } from '../../client'

/** team_host from the form's number fields (CPUs, memory in GiB; a field left empty is left out, as
 * a type=number input reads '' for what is not a number); null when both are empty. Bounds are the
 * API's: a 0 is sent and refused there, naming its field. */
export function teamHostOf(cpus: string, memoryGib: string): TeamHost | null {
  const given: TeamHost = {}
  if (cpus.trim()) given.cpus = Number(cpus)
  if (memoryGib.trim()) given.memory_mib = Math.round(Number(memoryGib) * 1024)
  return Object.keys(given).length ? given : null
}

function hostWords(host: Host): string {
  const cpus = host.cpus == null ? 'CPUs not known' : `${host.cpus} CPUs`
  const memory = host.memory_mib == null ? 'memory not known' : `${Math.round((host.memory_mib / 1024) * 10) / 10} GiB`
  return `${cpus}, ${memory}`
}

/** Which of the team's figures the check used and where they came from: "Team's CPUs: given on the
 * check (team_host.cpus), in place of the capture's 2 (...); used by innodb_read_io_threads. Team's
 * memory: given on the check (...); used by no default of this check." */
export function hostsUse(hosts: CheckHosts): string {
  const used = (names: readonly string[] | undefined) =>
    names?.length ? `used by ${names.join(', ')}` : 'used by no default of this check'
  return (
    `Team's CPUs: ${hosts.team.cpus_from}; ${used(hosts.cpus_used_by)}. ` +
    `Team's memory: ${hosts.team.memory_from}; ${used(hosts.memory_used_by)}.`
  )
}

/** "team's host: 64 CPUs, 256 GiB · lab's host: 2 CPUs, 23.5 GiB": what the check resolved for. */
export function hostsLine(hosts: CheckHosts): string {
  return `team's host: ${hostWords(hosts.team)} · lab's host: ${hostWords(hosts.lab)}`
}
