"""One concept: the documented formulas of the defaults a server computes from its host (CPUs, memory)
at start, per flavor and version range, resolved for a given host: the team's server and the lab's.

    resolve("mysql", "9.7.4", "innodb_read_io_threads", Host(cpus=16, memory_mib=65536), settings)
        -> Resolution(value="8", words="logical CPUs / 2, min 4: 16 CPUs -> 8")

`settings` are the team's variables (lower-case names, SHOW GLOBAL VARIABLES text): a formula reads
the team's innodb_buffer_pool_size / innodb_buffer_pool_chunk_size from them, since one option file
is meant on both hosts. A variable with no formula here, or a host that lacks the figure a formula
needs, resolves to value None with words that say why ("depends on the host: not resolved ...").

Sources, each formula's own in its comment. Verified on the lab host (2 logical CPUs, 24 GiB) against
the lab's MySQL 9.7.4-2 binary (`--verbose --help` and SHOW GLOBAL VARIABLES of an instance started
with --no-defaults, then with --innodb-buffer-pool-size=2G): innodb_read_io_threads 4,
innodb_parallel_read_threads 4, innodb_purge_threads 1 (its help prints 4: resolved at start),
innodb_log_writer_threads OFF, innodb_buffer_pool_instances 1 with a 128 MiB and with a 2 GiB pool
(the CPU hint: 2 / 4 -> 1; 8.0's rule would give 8), innodb_page_cleaners 1, temptable_max_ram
1 GiB (3 % of 24 GiB is under the 1 GiB floor); MariaDB 10.11.19's and 11.8.9's help:
thread_pool_size 2 (MariaDB's InnoDB I/O and purge threads are a fixed 4 in both helps: no formula,
the help's table is their default). A check against the lab's 9.7 also compares the formula for the
lab host with what its started server took (tests/captures/test_capture_schema.py).

Only the low end of each range shows on a 2-CPU host: the upper branches (CPUs / 2 above 8 CPUs,
purge 4 above 16 CPUs, log writers ON from 32 CPUs, temptable_max_ram between 1 and 4 GiB and its
rounding, the pool hint) and every MySQL 8.0 value come from the documentation only (the lab has no
8.0 binary). No formula is given for back_log, open_files_limit, the table caches,
innodb_write_io_threads or innodb_redo_log_capacity: each stays "depends on the host: not resolved".
"""

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import psutil
from pydantic import BaseModel

from upgradelab.captures.configuration import HostFacts

GIB = 1024**3
_MIB = 1024**2
_CHUNK_DEFAULT = 128 * _MIB  # innodb_buffer_pool_chunk_size default (MySQL 8.0-9.7 reference manual)


class Host(BaseModel):
    """A host's figures: `cpus` logical CPUs and `memory_mib` RAM in MiB (None: not known), each with
    where it came from (`cpus_from`, `memory_from`)."""

    cpus: int | None
    memory_mib: int | None
    cpus_from: str = ""
    memory_from: str = ""


class Resolution(BaseModel):
    """A host-dependent default resolved for one host: `value` (SHOW GLOBAL VARIABLES spelling; None:
    not resolved), `words`: the formula and its figures, or why it is not resolved, and `uses`: the
    host's figures its formula read ("cpus", "memory"; empty on checks made before)."""

    value: str | None
    words: str
    uses: list[str] = []


class CheckHosts(BaseModel):
    """The two hosts a check resolves host-dependent defaults for: the team's server and the lab's;
    `cpus_used_by` / `memory_used_by`: the variables whose default for the team's host was computed
    from its CPUs / its memory (empty: none of this check's defaults read it)."""

    team: Host
    lab: Host
    cpus_used_by: list[str] = []
    memory_used_by: list[str] = []


@dataclass(frozen=True)
class _Figures:  # what a formula reads
    host: Host
    pool: int  # innodb_buffer_pool_size, bytes
    chunk: int  # innodb_buffer_pool_chunk_size, bytes
    read: set[str] = field(default_factory=set)  # the host's figures a formula read


class _Missing(Exception):
    """A figure a formula needs is not known for this host (its words say which)."""


# a formula: figures -> (value, how it was reached)
Formula = Callable[[_Figures], tuple[str, str]]


def lab_host() -> Host:
    """The lab's own host: os.cpu_count() and psutil's total memory."""
    return Host(
        cpus=os.cpu_count(),
        memory_mib=psutil.virtual_memory().total // _MIB,
        cpus_from="the lab host (os.cpu_count)",
        memory_from="the lab host (total memory)",
    )


def team_host(facts: HostFacts, cpus: int | None, memory_mib: int | None) -> Host:
    """The team's host: `cpus` / `memory_mib` as the user gave them on the check (a CPU count given
    overrides the capture's, and its words say so and name the capture's), else the CPUs the captured
    server shows (HostFacts: MariaDB's thread_pool_size); its memory is never visible through SQL
    (the buffer pool is not the RAM)."""
    if cpus is not None:
        cpus_from = "given on the check (team_host.cpus)"
        if facts.cpus is not None and facts.cpus != cpus:
            cpus_from += f", in place of the capture's {facts.cpus} ({facts.cpus_from})"
        elif facts.cpus is not None:
            cpus_from += ", as the capture shows too"
    elif facts.cpus is not None:
        cpus, cpus_from = facts.cpus, f"the capture: {facts.cpus_from}"
    else:
        cpus_from = f"not known ({facts.cpus_from}): give team_host.cpus"
    memory_from = (
        "given on the check (team_host.memory_mib)"
        if memory_mib is not None
        else "not known (not visible through SQL; the buffer pool is not the RAM): give team_host.memory_mib"
    )
    return Host(cpus=cpus, memory_mib=memory_mib, cpus_from=cpus_from, memory_from=memory_from)


def _cpus(figures: _Figures) -> int:
    figures.read.add("cpus")
    if figures.host.cpus is None:
        raise _Missing("the host's CPU count is not known")
    return figures.host.cpus


def _fixed(value: str, why: str) -> Formula:
    return lambda _: (value, why)


def _read_io(f: _Figures) -> tuple[str, str]:
    # 8.4 manual, innodb_read_io_threads: "available logical processors / 2, minimum default 4" (max 64)
    cpus = _cpus(f)
    value = min(64, max(4, cpus // 2))
    return str(value), f"logical CPUs / 2, min 4: {cpus} CPUs -> {value}"


def _parallel_read(f: _Figures) -> tuple[str, str]:
    # 8.4 manual, innodb_parallel_read_threads: "available logical processors / 8, minimum 4" (max 256)
    cpus = _cpus(f)
    value = min(256, max(4, cpus // 8))
    return str(value), f"logical CPUs / 8, min 4: {cpus} CPUs -> {value}"


def _purge(f: _Figures) -> tuple[str, str]:
    # 8.4 release notes / manual, innodb_purge_threads: "1 if logical processors <= 16, else 4"
    cpus = _cpus(f)
    value = 1 if cpus <= 16 else 4
    return str(value), f"1 if logical CPUs <= 16, else 4: {cpus} CPUs -> {value}"


def _log_writers(f: _Figures) -> tuple[str, str]:
    # 8.4 release notes, innodb_log_writer_threads: "OFF if fewer than 32 logical processors, else ON"
    cpus = _cpus(f)
    value = "ON" if cpus >= 32 else "OFF"
    return value, f"ON if logical CPUs >= 32: {cpus} CPUs -> {value}"


def _temptable(f: _Figures) -> tuple[str, str]:
    # 8.4 release notes, temptable_max_ram: "3% of total memory, within a range of 1-4 GiB"
    f.read.add("memory")
    if f.host.memory_mib is None:
        raise _Missing("the host's memory is not known")
    value = min(4 * GIB, max(GIB, int(f.host.memory_mib * _MIB * 3 // 100)))
    return str(value), f"3 % of RAM, 1-4 GiB: {f.host.memory_mib} MiB -> {value} bytes"


def _instances_8_4(f: _Figures) -> tuple[int, str]:
    # 8.4 release notes / manual, innodb_buffer_pool_instances: 1 if innodb_buffer_pool_size <= 1 GiB;
    # else the smaller of two hints, within 1-64: (pool size / chunk size) / 2, and logical CPUs / 4
    if f.pool <= GIB:
        return 1, f"1 while the buffer pool <= 1 GiB: {f.pool // _MIB} MiB -> 1"
    cpus = _cpus(f)
    pool_hint, cpu_hint = f.pool // f.chunk // 2, cpus // 4
    value = max(1, min(64, pool_hint, cpu_hint))
    return value, (
        f"min(pool / chunk / 2, logical CPUs / 4), 1-64: min({pool_hint}, {cpu_hint}) "
        f"({f.pool // _MIB} MiB pool, {cpus} CPUs) -> {value}"
    )


def _instances_8_0(f: _Figures) -> tuple[int, str]:
    # 8.0 manual, innodb_buffer_pool_instances: "8, or 1 if innodb_buffer_pool_size < 1GB"
    value = 8 if f.pool >= GIB else 1
    return value, f"8 if the buffer pool >= 1 GiB, else 1: {f.pool // _MIB} MiB -> {value}"


def _pool_instances(rule: Callable[[_Figures], tuple[int, str]]) -> Formula:
    def formula(f: _Figures) -> tuple[str, str]:
        value, words = rule(f)
        return str(value), words

    return formula


def _cleaners_8_4(f: _Figures) -> tuple[str, str]:
    # 8.4 release notes, innodb_page_cleaners: "the value of innodb_buffer_pool_instances"
    value, words = _instances_8_4(f)
    return str(value), f"= innodb_buffer_pool_instances ({words})"


def _cleaners_8_0(f: _Figures) -> tuple[str, str]:
    # 8.0 manual, innodb_page_cleaners: 4, lowered to innodb_buffer_pool_instances when it is fewer
    instances, words = _instances_8_0(f)
    return str(min(4, instances)), f"4, at most innodb_buffer_pool_instances ({words})"


def _thread_pool(f: _Figures) -> tuple[str, str]:
    # MariaDB manual, thread_pool_size: "Default Value: Based on the number of processors"
    cpus = _cpus(f)
    return str(cpus), f"logical CPUs: {cpus} CPUs -> {cpus}"


_STATIC_8_0 = "a fixed default before 8.4"
# (flavor, first version, version after the last (None: open), name) -> formula
_FORMULAS: list[tuple[str, tuple[int, int], tuple[int, int] | None, str, Formula]] = [
    ("mysql", (8, 4), None, "innodb_buffer_pool_instances", _pool_instances(_instances_8_4)),
    ("mysql", (8, 4), None, "innodb_page_cleaners", _cleaners_8_4),
    ("mysql", (8, 4), None, "innodb_read_io_threads", _read_io),
    ("mysql", (8, 4), None, "innodb_parallel_read_threads", _parallel_read),
    ("mysql", (8, 4), None, "innodb_purge_threads", _purge),
    ("mysql", (8, 4), None, "innodb_log_writer_threads", _log_writers),
    ("mysql", (8, 4), None, "temptable_max_ram", _temptable),
    # MySQL 8.0 manual: the same variables' 8.0 defaults (fixed but the pool instances)
    ("mysql", (8, 0), (8, 4), "innodb_buffer_pool_instances", _pool_instances(_instances_8_0)),
    ("mysql", (8, 0), (8, 4), "innodb_page_cleaners", _cleaners_8_0),
    ("mysql", (8, 0), (8, 4), "innodb_read_io_threads", _fixed("4", _STATIC_8_0)),
    ("mysql", (8, 0), (8, 4), "innodb_parallel_read_threads", _fixed("4", _STATIC_8_0)),
    ("mysql", (8, 0), (8, 4), "innodb_purge_threads", _fixed("4", _STATIC_8_0)),
    ("mysql", (8, 0), (8, 4), "innodb_log_writer_threads", _fixed("ON", _STATIC_8_0)),
    ("mysql", (8, 0), (8, 4), "temptable_max_ram", _fixed(str(GIB), _STATIC_8_0)),
    ("mariadb", (10, 0), None, "thread_pool_size", _thread_pool),
]


def flavor_of(version: str) -> str:
    """ "mariadb" when the version string says MariaDB ("11.8.9-MariaDB-..."), else "mysql"."""
    return "mariadb" if "mariadb" in version.lower() else "mysql"


def _release(version: str) -> tuple[int, int] | None:
    found = re.match(r"^(\d+)\.(\d+)", version.strip())
    return (int(found[1]), int(found[2])) if found else None


def formula_of(flavor: str, version: str, name: str) -> Formula | None:
    """The formula of `name`'s default on `flavor` `version`, None when none is documented here."""
    release = _release(version)
    if release is None:
        return None
    for rule_flavor, first, after, rule_name, formula in _FORMULAS:
        in_range = first <= release and (after is None or release < after)
        if (rule_flavor, rule_name) == (flavor, name) and in_range:
            return formula
    return None


def _bytes(settings: Mapping[str, str], name: str, default: int) -> int:
    text = settings.get(name, "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else default


def resolve(flavor: str, version: str, name: str, host: Host, settings: Mapping[str, str]) -> Resolution:
    """`name`'s default on `flavor` `version` for `host`, with the team's `settings` (module docstring)."""
    formula = formula_of(flavor, version, name)
    if formula is None:
        why = f"no formula for {flavor} {version}"
        return Resolution(value=None, words=f"depends on the host: not resolved ({why})")
    figures = _Figures(
        host=host,
        pool=_bytes(settings, "innodb_buffer_pool_size", 128 * _MIB),
        chunk=_bytes(settings, "innodb_buffer_pool_chunk_size", _CHUNK_DEFAULT),
    )
    try:
        value, words = formula(figures)
    except _Missing as missing:
        uses = sorted(figures.read)
        return Resolution(value=None, words=f"depends on the host: not resolved ({missing})", uses=uses)
    return Resolution(value=value, words=words, uses=sorted(figures.read))


def used_by(hosts: CheckHosts, resolutions: Mapping[str, Resolution | None]) -> CheckHosts:
    """`hosts` with the variables whose team-host default read its CPUs or memory, from
    {variable: its resolution for the team's host}."""
    cpus = sorted(name for name, one in resolutions.items() if one is not None and "cpus" in one.uses)
    memory = sorted(name for name, one in resolutions.items() if one is not None and "memory" in one.uses)
    return hosts.model_copy(update={"cpus_used_by": cpus, "memory_used_by": memory})
