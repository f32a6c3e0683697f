"""A run's JSON values read typed (db.ModelJSON, issue 48): its host context, its dataset preparation
progress, a variant's SHOW GLOBAL VARIABLES, a variant's packed probe column names, a finished run's
digests, and its experiment's resolved variants and workload parameters, each as the code before stored
them (plain JSON dicts and lists), read back as their models and written back as the same JSON; the
stream's progress events keep the keys the runner gave."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy.dialects import sqlite

from tests.stored_json import write_again, write_raw
from upgradelab.db import ModelJSON, sync_session
from upgradelab.experiments.schemas import ExperimentRead
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.probes.models import ProbeSeries
from upgradelab.results.store.models import GroupPoint, RunDigest, StatementRow
from upgradelab.runs.executor import state
from upgradelab.runs.executor.context import run_context
from upgradelab.runs.models import Experiment, Run, RunHostContext, RunProgress, RunVariant
from upgradelab.workloads import WORKLOADS, stored_workload

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


# as runs/experiments.py create stored them: dataclasses.asdict(ResolvedVariant) of each variant, the
# A/A control last (the baseline's copy, renamed)
OLD_VARIANTS: list[dict[str, Any]] = [
    {"name": "mysql-9.7 default", "target": "mysql-9.7", "preset": "default", "options": {},
     "redo_log": "enabled", "set_global": {}, "set_session": {}, "instance": []},
    {"name": "tuned", "target": "mysql-9.7", "preset": "redo-off+skip-log-bin",
     "options": {"skip-log-bin": None, "max-connections": "300"}, "redo_log": "disabled",
     "set_global": {"innodb_flush_log_at_trx_commit": "2"}, "set_session": {"sql_mode": ""},
     "instance": ["ALTER INSTANCE DISABLE INNODB REDO_LOG"]},
    {"name": "mysql-9.7 default (A/A)", "target": "mysql-9.7", "preset": "default", "options": {},
     "redo_log": "enabled", "set_global": {}, "set_session": {}, "instance": []},
]  # fmt: skip
# a variant stored before SET GLOBAL / SESSION and instance statements (commit 33ef202): five keys
OLDEST_VARIANT: dict[str, Any] = {
    "name": "first", "target": "mariadb-10.11", "preset": "default", "options": {"max-connections": "50"},
    "redo_log": "enabled",
}  # fmt: skip
NO_SETTINGS: dict[str, Any] = {"set_global": {}, "set_session": {}, "instance": []}


def test_an_experiments_variants_as_stored_before_read_as_resolved_variants_and_write_back_the_same() -> None:
    column = _column(Experiment, "variants")
    read = column.process_result_value(_stored(OLD_VARIANTS), DIALECT)
    assert read is not None and [type(v) for v in read] == [ResolvedVariant] * 3
    assert read[1].options == {"skip-log-bin": None, "max-connections": "300"}
    assert (
        read[1].option_lines() == ["skip-log-bin", "max-connections=300"] and read[1].redo_log == "disabled"
    )
    assert read[1].set_session == {"sql_mode": ""} and read[2].name.endswith("(A/A)")
    assert column.process_bind_param(read, DIALECT) == OLD_VARIANTS
    # the API's read of them is what it was (ExperimentRead's variants: the stored dicts)
    experiment = Experiment(
        id=1, name="e", workload="insert-truncate", iterations=1, parameters={}, policy="warm", variants=read,
        schedule="interleaved", rounds=1, block=1, aa_control=True, seed=3, created_at=datetime.now(UTC),
    )  # fmt: skip
    assert ExperimentRead.model_validate(experiment).model_dump(mode="json")["variants"] == OLD_VARIANTS


def test_the_oldest_variant_reads_with_no_settings_and_keeps_its_meaning() -> None:
    column = _column(Experiment, "variants")
    read = column.process_result_value([OLDEST_VARIANT], DIALECT)
    assert (
        read is not None and read[0].set_global == {} and read[0].set_session == {} and read[0].instance == []
    )
    # written back with the three empty (what every reader took their absence for), nothing else changed
    assert column.process_bind_param(read, DIALECT) == [OLDEST_VARIANT | NO_SETTINGS]


@pytest.mark.parametrize(
    ("variant", "field"),
    [
        (OLDEST_VARIANT | {"redo_log": "maybe"}, "redo_log"),
        ({key: value for key, value in OLDEST_VARIANT.items() if key != "target"}, "target"),
        (OLDEST_VARIANT | {"set_global": {"max_connections": None}}, "set_global.max_connections"),
    ],
    ids=["redo_log", "no-target", "null-set-global"],
)
def test_a_bad_variant_is_refused_naming_its_field(variant: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError, match=rf"0\.{field}"):
        _column(Experiment, "variants").process_bind_param([variant], DIALECT)


@pytest.mark.parametrize("slug", sorted(WORKLOADS))
def test_each_workloads_stored_parameters_read_back_as_its_model_and_write_back_the_same(slug: str) -> None:
    column = _column(Experiment, "parameters")
    workload_type = WORKLOADS[slug]
    stored = workload_type.Parameters().model_dump(mode="json")  # as runs/experiments.py create stores them
    read = column.process_result_value(_stored(stored), DIALECT)
    assert read == stored and column.process_bind_param(read, DIALECT) == stored
    workload = stored_workload(slug, read)
    assert workload is not None and workload.parameters == workload_type.Parameters.model_validate(stored)


def test_parameters_a_template_no_longer_accepts_read_as_no_workload_and_a_non_json_value_is_refused() -> (
    None
):
    assert stored_workload("count-star", {"rows": "many"}) is None
    assert stored_workload("no-such-template", {}) is None
    with pytest.raises(ValidationError, match="rows"):
        _column(Experiment, "parameters").process_bind_param({"rows": object()}, DIALECT)


def test_an_experiment_row_written_by_the_code_before_reads_typed_and_writes_back_the_same(
    database: None,
) -> None:
    parameters = {"threads": [1, 4], "duration_s": 5, "script": "oltp_read_only", "tables": 1,
                  "table_size": 1000, "character_set": "utf8mb4", "collation": None}  # fmt: skip
    with sync_session() as session:
        row = Experiment(name="old-json", workload="charset-oltp", iterations=1)
        session.add(row)
        session.commit()
        experiment_id = row.id
    write_raw("experiment", experiment_id, variants=[*OLD_VARIANTS, OLDEST_VARIANT], parameters=parameters)
    with sync_session() as session:
        experiment = session.get_one(Experiment, experiment_id)
        assert [v.name for v in experiment.variants][-2:] == ["mysql-9.7 default (A/A)", "first"]
        groups = stored_workload(experiment.workload, experiment.parameters)
        assert groups is not None and groups.groups() == ["threads=1", "threads=4"]
    again = write_again(Experiment, experiment_id, "variants", "parameters")
    assert again == {"variants": [*OLD_VARIANTS, OLDEST_VARIANT | NO_SETTINGS], "parameters": parameters}
    with sync_session() as session:
        session.delete(session.get_one(Experiment, experiment_id))
        session.commit()
