"""Workload templates by slug."""

from upgradelab.workloads.base import StatementTiming, Workload, WorkloadInfo
from upgradelab.workloads.insert_truncate import InsertTruncate

WORKLOADS: dict[str, type[Workload]] = {InsertTruncate.info.slug: InsertTruncate}

__all__ = ["WORKLOADS", "StatementTiming", "Workload", "WorkloadInfo"]
