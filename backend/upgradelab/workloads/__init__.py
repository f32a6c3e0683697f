"""Workload templates by slug: the five source articles and custom SQL."""

from collections.abc import Mapping
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


def stored_workload(slug: str, parameters: Mapping[str, Any]) -> Workload | None:
    """The template `slug` with a stored experiment's parameters (experiment.parameters, the JSON of
    its Parameters model) read as that model; None for an unknown template or parameters it no longer
    accepts (an old run)."""
    workload_type = WORKLOADS.get(slug)
    if workload_type is None:
        return None
    try:
        return workload_type(workload_type.Parameters.model_validate(parameters or {}))
    except ValueError:
        return None


def groups_of(slug: str, parameters: Mapping[str, Any]) -> list[str]:
    """The iteration groups a stored experiment runs per variant ([""] for an unknown slug or
    parameters its template no longer accepts)."""
    workload = stored_workload(slug, parameters)
    try:
        return workload.groups() if workload is not None else [""]
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
    "stored_workload",
]
