"""Workload templates by slug: the five source articles and custom SQL."""

from typing import Any

from upgradelab.workloads.base import (
    POLICIES,
    Policy,
    ServerSession,
    StatementTiming,
    TargetFacts,
    Workload,
    WorkloadInfo,
)
from upgradelab.workloads.charset_oltp import CharsetOltp
from upgradelab.workloads.count_star import CountStar
from upgradelab.workloads.custom_sql import CustomSql
from upgradelab.workloads.insert_truncate import InsertTruncate
from upgradelab.workloads.lock_waits import LockWaits
from upgradelab.workloads.parallel_read import ParallelRead

WORKLOADS: dict[str, type[Workload]] = {
    w.info.slug: w for w in (InsertTruncate, CountStar, CharsetOltp, ParallelRead, LockWaits, CustomSql)
}


def groups_of(slug: str, parameters: dict[str, Any]) -> list[str]:
    """The iteration groups a stored experiment runs per variant ([""] for an unknown slug)."""
    workload_type = WORKLOADS.get(slug)
    if workload_type is None:
        return [""]
    try:
        return workload_type(workload_type.Parameters.model_validate(parameters or {})).groups()
    except ValueError:
        return [""]


__all__ = [
    "POLICIES",
    "WORKLOADS",
    "Policy",
    "ServerSession",
    "StatementTiming",
    "TargetFacts",
    "Workload",
    "WorkloadInfo",
    "groups_of",
]
