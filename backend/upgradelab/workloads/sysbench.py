"""Driving Debian's sysbench 1.0.20 (/usr/bin/sysbench) and parsing its report.

Throughput comes from sysbench's own "transactions: N (X per sec.)" and "queries: N (X per sec.)"
lines; latency percentiles p50/p95/p99 (milliseconds) from its `--histogram=on` table (value = the
bucket's upper latency, count = events), the reported single percentile line is kept as a check.
"""

import math
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from upgradelab.targets.client_auth import AuthPolicy, plugin_dir
from upgradelab.targets.provisioners.base import Endpoint

SYSBENCH = "/usr/bin/sysbench"
LUA_DIR = "/usr/share/sysbench"
SCRIPTS = ("oltp_read_only", "oltp_point_select")

_HISTOGRAM_ROW = re.compile(r"^\s*([0-9.]+)\s+\|\**\s+(\d+)\s*$")
_TRANSACTIONS = re.compile(r"^\s*transactions:\s+(\d+)\s+\(([0-9.]+) per sec\.\)", re.MULTILINE)
_QUERIES = re.compile(r"^\s*queries:\s+(\d+)\s+\(([0-9.]+) per sec\.\)", re.MULTILINE)
_ERRORS = re.compile(r"^\s*ignored errors:\s+(\d+)", re.MULTILINE)
_TOTAL_TIME = re.compile(r"^\s*total time:\s+([0-9.]+)s", re.MULTILINE)
_PERCENTILE = re.compile(r"^\s*(\d+)th percentile:\s+([0-9.]+)", re.MULTILINE)
_LATENCY = re.compile(r"^\s*(min|avg|max):\s+([0-9.]+)", re.MULTILINE)


class SysbenchError(RuntimeError):
    """sysbench failed or printed a report this parser does not understand; carries its output tail."""


@dataclass(frozen=True)
class SysbenchReport:
    """One `sysbench ... run`: tps/qps per second, latencies in milliseconds, total_time_s seconds."""

    transactions: int
    tps: float
    queries: int
    qps: float
    ignored_errors: int
    total_time_s: float
    latency_min_ms: float
    latency_avg_ms: float
    latency_max_ms: float
    reported_percentile: tuple[int, float] | None
    p50_ms: float
    p95_ms: float
    p99_ms: float

    def metrics(self) -> dict[str, float]:
        """The numbers a sample stores: tps, qps, p50_ms, p95_ms, p99_ms, avg_ms, max_ms, errors."""
        return {
            "tps": self.tps,
            "qps": self.qps,
            "p50_ms": self.p50_ms,
            "p95_ms": self.p95_ms,
            "p99_ms": self.p99_ms,
            "avg_ms": self.latency_avg_ms,
            "max_ms": self.latency_max_ms,
            "errors": float(self.ignored_errors),
        }


def histogram(output: str) -> list[tuple[float, int]]:
    """(latency ms, count) rows of the `--histogram=on` table, in sysbench's (ascending) order."""
    rows = []
    for line in output.splitlines():
        match = _HISTOGRAM_ROW.match(line)
        if match:
            rows.append((float(match.group(1)), int(match.group(2))))
    return rows


def histogram_percentile(rows: list[tuple[float, int]], fraction: float) -> float:
    """The smallest bucket value whose cumulative count reaches fraction x total rounded half up,
    the rank sysbench 1.0's own sb_histogram_get_pct_* uses (floor(n * pct / 100 + 0.5))."""
    total = sum(count for _, count in rows)
    if total == 0:
        raise SysbenchError("empty latency histogram")
    rank = max(1, math.floor(round(fraction * total, 9) + 0.5))
    seen = 0
    for value, count in rows:
        seen += count
        if seen >= rank:
            return value
    return rows[-1][0]


def parse_report(output: str) -> SysbenchReport:
    """Parse `sysbench ... run --histogram=on` stdout. Raises SysbenchError naming the missing part."""

    def need(pattern: re.Pattern[str], what: str) -> re.Match[str]:
        match = pattern.search(output)
        if match is None:
            raise SysbenchError(f"no {what!r} line in sysbench output:\n{output[-1500:]}")
        return match

    transactions, queries = need(_TRANSACTIONS, "transactions"), need(_QUERIES, "queries")
    latency = dict(_LATENCY.findall(output))
    percentile = _PERCENTILE.search(output)
    rows = histogram(output)
    if not rows:
        raise SysbenchError(f"no latency histogram in sysbench output (--histogram=on):\n{output[-1500:]}")
    return SysbenchReport(
        transactions=int(transactions.group(1)),
        tps=float(transactions.group(2)),
        queries=int(queries.group(1)),
        qps=float(queries.group(2)),
        ignored_errors=int(need(_ERRORS, "ignored errors").group(1)),
        total_time_s=float(need(_TOTAL_TIME, "total time").group(1)),
        latency_min_ms=float(latency.get("min", "nan")),
        latency_avg_ms=float(latency.get("avg", "nan")),
        latency_max_ms=float(latency.get("max", "nan")),
        reported_percentile=(int(percentile.group(1)), float(percentile.group(2))) if percentile else None,
        p50_ms=histogram_percentile(rows, 0.50),
        p95_ms=histogram_percentile(rows, 0.95),
        p99_ms=histogram_percentile(rows, 0.99),
    )


def command(
    script: str, endpoint: Endpoint, database: str, action: str, options: dict[str, str | int]
) -> list[str]:
    """The argv of `sysbench <lua> --mysql-... [options] <action>`; run() moves the password off the
    command line."""
    if script not in SCRIPTS:
        raise ValueError(f"unknown sysbench script {script!r}; known: {', '.join(SCRIPTS)}")
    args = [
        SYSBENCH,
        f"{LUA_DIR}/{script}.lua",
        "--db-driver=mysql",
        f"--mysql-host={endpoint.host}",
        f"--mysql-port={endpoint.port}",
        f"--mysql-user={endpoint.user}",
        f"--mysql-password={endpoint.password}",
        f"--mysql-db={database}",
    ]
    args += [f"--{name}={value}" for name, value in options.items()]
    return [*args, action]


def run(args: list[str], timeout_s: float, auth: AuthPolicy | None = None) -> str:
    """Run sysbench; its stdout. Raises SysbenchError with the output tail when it fails.

    `--mysql-password=` goes into a 0600 `--config-file` for the run's length instead of the
    command line, which every local user can read (/proc/<pid>/cmdline): it is the lab admin's.
    Its client library (libmariadb) loads only the plugins `auth` (the target's policy) allows:
    MARIADB_PLUGIN_DIR names a directory of those (targets/client_auth.py), so a server asking for
    mysql_clear_password gets no password."""
    if shutil.which(args[0]) is None:
        raise SysbenchError(f"{args[0]} is not installed (Debian package sysbench)")
    secret = [arg for arg in args if arg.startswith("--mysql-password=")]
    public = [arg for arg in args if not arg.startswith("--mysql-password=")]
    with tempfile.NamedTemporaryFile("w", prefix="upgradelab-sysbench-", suffix=".cfg") as config:
        config.write("".join(arg.removeprefix("--") + "\n" for arg in secret))  # the file is 0600
        config.flush()
        argv = [public[0], f"--config-file={config.name}", *public[1:]]
        try:
            env = {**os.environ, "MARIADB_PLUGIN_DIR": plugin_dir(Path("/"), auth or AuthPolicy())}
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=timeout_s, check=False, env=env
            )
        except subprocess.TimeoutExpired as error:
            raise SysbenchError(f"sysbench did not finish within {timeout_s:.0f} s") from error
    if done.returncode != 0:
        raise SysbenchError(
            f"sysbench {args[-1]} exited {done.returncode}:\n{(done.stdout + done.stderr)[-1500:]}"
        )
    return done.stdout
