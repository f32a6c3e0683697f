"""Buffer pool counters from SHOW GLOBAL STATUS: read requests, disk reads, hit rate, pages/bytes read."""

from typing import ClassVar

from upgradelab.probes.base import Measurement, ProbeUnavailable, fetch_all
from upgradelab.targets.provisioners.base import ServerConnection

# metric name -> status variable (all cumulative counters since server start)
COUNTERS = {
    "read_requests": "Innodb_buffer_pool_read_requests",
    "reads": "Innodb_buffer_pool_reads",
    "pages_read": "Innodb_pages_read",
    "bytes_read": "Innodb_data_read",
}


def hit_rate(read_requests: float, reads: float) -> float | None:
    """1 - reads / read_requests, at least 0; None (undefined, not 100 %) with no read requests.

    The floor at 0: on a cold full scan MariaDB 10.11 counts more Innodb_buffer_pool_reads than
    Innodb_buffer_pool_read_requests (pages read by the scan's read-ahead without a counted request),
    which would give a negative rate; the raw counts are stored beside it.
    """
    if read_requests <= 0:
        return None
    return max(0.0, 1.0 - reads / read_requests)


class BufferPoolProbe:
    """Deltas of the InnoDB buffer pool counters across an iteration.

    Metrics (probe "buffer_pool"): read_requests (logical reads), reads (reads that missed the pool and
    went to disk), pages_read, bytes_read (Innodb_data_read, bytes), hit_rate (1 - reads/read_requests,
    None when read_requests is 0). Source: SHOW GLOBAL STATUS; counters are server-wide.
    """

    name: ClassVar[str] = "buffer_pool"
    cadence: ClassVar[str] = "iteration"

    def check(self, probe_connection: ServerConnection, workload_thread_id: int | None) -> None:
        """Raise ProbeUnavailable naming any counter this server's SHOW GLOBAL STATUS lacks."""
        missing = sorted(set(COUNTERS.values()) - set(self.read(probe_connection)))
        if missing:
            raise ProbeUnavailable(f"SHOW GLOBAL STATUS has no {', '.join(missing)}")

    def read(self, probe_connection: ServerConnection) -> dict[str, float]:
        """Status variable name -> cumulative value."""
        names = tuple(COUNTERS.values())
        placeholders = ", ".join(["%s"] * len(names))
        rows = fetch_all(
            probe_connection, f"SHOW GLOBAL STATUS WHERE Variable_name IN ({placeholders})", names
        )
        return {str(name): float(value) for name, value in rows}

    def delta(self, before: dict[str, float], after: dict[str, float]) -> list[Measurement]:
        """read_requests, reads, pages_read, bytes_read deltas and the hit rate."""
        changes = {metric: after[status] - before[status] for metric, status in COUNTERS.items()}
        measured = [Measurement(self.name, metric, value) for metric, value in changes.items()]
        measured.append(
            Measurement(self.name, "hit_rate", hit_rate(changes["read_requests"], changes["reads"]))
        )
        return measured
