"""A run's JSON values read typed (db.ModelJSON, issue 48): its host context, its dataset preparation
progress, a variant's SHOW GLOBAL VARIABLES, a variant's packed probe column names and a finished run's
digests, each as the code before stored them (plain JSON dicts and lists), read back as their models and
written back as the same JSON; the stream's progress events keep the keys the runner gave."""

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy.dialects import sqlite

from upgradelab.db import ModelJSON
from upgradelab.probes.models import ProbeSeries
from upgradelab.results.store.models import GroupPoint, RunDigest, StatementRow
from upgradelab.runs.executor import state
from upgradelab.runs.executor.context import run_context
from upgradelab.runs.models import Run, RunHostContext, RunProgress, RunVariant

DIALECT = sqlite.dialect()

# as runs/executor/context.py run_context returned it before (a dict), through json
OLD_CONTEXT: dict[str, Any] = {
    "host": {
        "cpu_model": "AMD EPYC 7B13",
        "cores": 2,
        "memory_bytes": 25_769_803_776,
        "kernel": "6.1.0-27-cloud-amd64",
        "storage": {
            "path": "/var/lib/upgradelab/state",
            "mount_point": "/",
            "fs_type": "ext4",
            "device": "/dev/sda1",
        },
    },
    "upgradelab_version": {"package": "0.1.0", "git_commit": None},
}


def _column(table: Any, name: str) -> ModelJSON[Any]:
    column = table.__table__.c[name].type
    assert isinstance(column, ModelJSON), f"{table.__tablename__}.{name} is not typed"
    return column


def _stored(value: Any) -> Any:
    """The value as the database gives it back: its JSON text parsed."""
    return json.loads(json.dumps(value))


def test_a_runs_context_as_stored_before_reads_as_the_host_context_and_writes_back_the_same() -> None:
    column = _column(Run, "context")
    read = column.process_result_value(_stored(OLD_CONTEXT), DIALECT)
    assert isinstance(read, RunHostContext)
    assert read.host.storage is not None and read.host.storage.fs_type == "ext4"
    assert read.host.memory_bytes == 25_769_803_776 and read.upgradelab_version.git_commit is None
    assert column.process_bind_param(read, DIALECT) == OLD_CONTEXT
    # a host that gave nothing (no storage, no CPU model: the keys absent) still reads
    bare = column.process_result_value({"host": {}, "upgradelab_version": {}}, DIALECT)
    assert bare is not None and bare.host.storage is None and bare.host.cpu_model is None


def test_the_context_the_runner_reads_now_is_stored_with_the_keys_it_had(tmp_path: Path) -> None:
    column = _column(Run, "context")
    stored = column.process_bind_param(run_context(tmp_path), DIALECT)
    assert stored.keys() == OLD_CONTEXT.keys() and stored["host"].keys() == OLD_CONTEXT["host"].keys()
    assert stored["host"]["storage"]["path"] == str(tmp_path)


@pytest.mark.parametrize(
    "progress",
    [
        {
            "phase": "loading",
            "rows": 1200,
            "rows_total": 10_000,
            "bytes": 65_536,
            "elapsed_s": 1.5,
            "estimate_s": 11.0,
        },
        {"phase": "reused", "spec_hash": "3f2a9c"},
        {"phase": "dumping"},
    ],
    ids=["loading", "reused", "phase-only"],
)
def test_a_runs_progress_as_stored_before_reads_typed_and_its_event_keeps_its_keys(
    progress: dict[str, Any],
) -> None:
    column = _column(Run, "progress")
    read = column.process_result_value(_stored(progress), DIALECT)
    assert isinstance(read, RunProgress) and read.phase == progress["phase"]
    assert read.rows == progress.get("rows") and read.spec_hash == progress.get("spec_hash")
    # the stream event carries the fields the runner gave, no more (as when progress was a dict)
    typed = RunProgress.model_validate(progress)
    assert state._as_json({"progress": typed, "current_variant": 1}) == {
        "progress": progress,
        "current_variant": 1,
    }


def test_a_progress_without_its_phase_is_refused_naming_it() -> None:
    with pytest.raises(ValidationError, match="phase"):
        _column(Run, "progress").process_bind_param({"rows": 3}, DIALECT)


def test_a_variants_global_variables_read_as_text_by_name() -> None:
    column = _column(RunVariant, "variables")
    stored = {"innodb_buffer_pool_size": "134217728", "sql_mode": "", "version": "11.8.3-MariaDB"}
    assert column.process_result_value(_stored(stored), DIALECT) == stored
    with pytest.raises(ValidationError, match="max_connections"):
        column.process_bind_param({"max_connections": None}, DIALECT)


def test_a_probe_series_column_names_read_as_text() -> None:
    column = _column(ProbeSeries, "columns")
    assert column.process_result_value(["hit_rate", "client_s"], DIALECT) == ["hit_rate", "client_s"]
    with pytest.raises(ValidationError):
        column.process_bind_param([{"name": "hit_rate"}], DIALECT)


def test_each_digest_as_stored_before_reads_as_the_rows_it_was_written_as() -> None:
    column = _column(RunDigest, "body")
    statements = [
        {
            "variant": "a",
            "variant_index": 0,
            "statement": "TRUNCATE t",
            "count": 3,
            "median_s": 0.01,
            "p95_s": None,
            "total_s": 0.04,
        }
    ]
    medians = [
        {
            "variant_index": 1,
            "variant": "b",
            "group": "threads=16",
            "iterations": 5,
            "median_s": 0.2,
            "metrics": {"tps": 900.0},
        }
    ]
    read_statements = column.process_result_value(_stored(statements), DIALECT)
    read_medians = column.process_result_value(_stored(medians), DIALECT)
    assert read_statements is not None and [type(row) for row in read_statements] == [StatementRow]
    assert read_medians is not None and [type(row) for row in read_medians] == [GroupPoint]
    assert column.process_bind_param(read_statements, DIALECT) == statements
    assert column.process_bind_param(read_medians, DIALECT) == medians
    assert column.process_result_value([], DIALECT) == []
    with pytest.raises(ValidationError):
        column.process_bind_param([{"variant": "a", "statement": "x"}], DIALECT)
