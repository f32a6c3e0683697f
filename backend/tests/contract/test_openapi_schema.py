"""The OpenAPI schema is the contract the UI's generated client is built from: values with a known
shape are enums and typed models there, and the job statuses (every kind) and the replay groups are
defined once."""

from typing import Any, get_args

from upgradelab.execution.status import FINAL_STATUSES, FinalJobStatus, JobStatus, JobStatuses
from upgradelab.main import app
from upgradelab.replay.groups import GROUPS, ReplayGroups
from upgradelab.targets.provisioners import PROVISIONERS
from upgradelab.targets.schemas import ProvisionerKind

SCHEMAS: dict[str, Any] = app.openapi()["components"]["schemas"]


def _property(model: str, field: str) -> dict[str, Any]:
    prop: dict[str, Any] = SCHEMAS[model]["properties"][field]
    return prop


def _refs(prop: dict[str, Any]) -> set[str]:
    """Component names a property points at, through anyOf (nullable) and arrays."""
    found = {prop["$ref"].rsplit("/", 1)[1]} if "$ref" in prop else set()
    for inner in prop.get("anyOf", []) + ([prop["items"]] if "items" in prop else []):
        found |= _refs(inner)
    return found


def test_final_job_statuses_are_one_enum_served_in_the_schema_for_every_kind() -> None:
    assert SCHEMAS["FinalJobStatus"]["enum"] == ["succeeded", "failed", "cancelled"]
    assert set(SCHEMAS["FinalJobStatus"]["enum"]) <= set(SCHEMAS["JobStatus"]["enum"])
    assert {JobStatus(s) for s in FinalJobStatus} == FINAL_STATUSES
    assert all(JobStatus(s).is_final == (s in FINAL_STATUSES) for s in JobStatus)
    assert JobStatuses().final == list(FinalJobStatus)
    assert "/api/runs/statuses" in app.openapi()["paths"]
    for read in ("RunRead", "ReplayRead", "AttributionRead"):
        assert _refs(_property(read, "status")) == {"JobStatus"}, read


def test_replay_groups_are_an_enum_in_the_report_order() -> None:
    assert SCHEMAS["ReplayGroup"]["enum"] == list(GROUPS)
    assert [str(group) for group in ReplayGroups().groups] == list(GROUPS)
    assert "/api/replays/groups" in app.openapi()["paths"]


def test_run_read_fields_with_a_known_shape_are_typed() -> None:
    assert _refs(_property("RunRead", "status")) == {"JobStatus"}
    assert _refs(_property("RunRead", "progress")) == {"RunProgress"}
    assert _refs(_property("RunRead", "schedule")) == {"RunSchedule"}
    assert _property("RunRead", "policy")["enum"] == ["warm", "cold_first", "cold_each_group", "cold_every"]
    assert _property("RunRead", "schedule_kind")["enum"] == ["interleaved", "sequential"]
    assert _refs(_property("RunContext", "context")) == {"RunHostContext"}
    assert _refs(_property("VariantState", "status")) == {"VariantStatus"}


def test_targets_experiments_and_workloads_use_enums() -> None:
    assert _property("TargetRead", "flavor")["enum"] == ["mysql", "mariadb"]
    assert set(_property("TargetRead", "provisioner")["enum"]) == set(PROVISIONERS)
    assert set(get_args(ProvisionerKind)) == set(PROVISIONERS)
    assert _refs(_property("TargetDetail", "connection")) == {"TargetConnection"}
    assert _property("ExperimentRead", "schedule")["enum"] == ["interleaved", "sequential"]
    assert _property("ResolvedVariantRead", "redo_log")["enum"] == ["enabled", "disabled"]
    assert "enum" in _property("WorkloadRead", "default_policy")


def test_operation_ids_are_the_route_function_names_and_unique() -> None:
    """The generated client names its functions after them (listRuns, getRun)."""
    ids = [op["operationId"] for path in app.openapi()["paths"].values() for op in path.values()]
    assert len(ids) == len(set(ids))
    assert {"list_runs", "get_run", "run_statuses", "create_experiment"} <= set(ids)


def test_article_001_cases_are_ratios_to_its_8_0_baseline() -> None:
    """The template page compares like with like: the article's ratio per case (total seconds of the
    case / of 8.0), each reproduced by a preset, or by another target for the other version (5.7)."""
    from upgradelab.api.workloads import _read
    from upgradelab.workloads import WORKLOADS

    read = _read(WORKLOADS["insert-truncate"])
    cases = {case.point: case for case in read.cases}
    assert read.baseline_point == "8.0"
    assert cases["8.0 redo off"].ratio == 2.82 / 7.93 and cases["8.0 redo off"].preset == "redo-off"
    assert cases["8.0 both off"].preset == "redo-off+skip-log-bin"
    assert cases["5.7"].other_target and cases["5.7"].ratio < 1
    presets = {preset.name for preset in read.presets}
    assert all(set(case.preset.split("+")) <= presets for case in read.cases)
