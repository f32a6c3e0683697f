"""An attribution's JSON columns as the code before typed columns wrote them (dicts, issue 48 item 5)
read back as their models (attribution/schemas.py), export as before, and keep what they meant when
written again through the models."""

from collections.abc import Iterator
from typing import Any

import pytest

from tests.stored_json import write_again, write_raw
from upgradelab.attribution import report, service
from upgradelab.attribution.models import Attribution
from upgradelab.attribution.schemas import (
    AttributionProgress,
    AttributionResult,
    CandidateRead,
    StepRead,
    UntestableRead,
)
from upgradelab.attribution.search import Outcome, Subset, beside, search
from upgradelab.db import sync_session
from upgradelab.execution.status import JobStatus
from upgradelab.results.stats import verdicts
from upgradelab.runs.models import Experiment, Run

GAP = verdicts.read(verdicts.Interval(1.6, 1.5, 1.7, 7, "paired rounds"))
CLOSER = verdicts.read(verdicts.Interval(0.7, 0.65, 0.75, 7, "paired rounds"))
NAMES = ["skip-log-bin", "innodb-file-per-table", "a", "b"]

# as attribution/service.py create and runner.py wrote them (dataclasses.asdict, dicts built by hand)
OLD_CANDIDATES: list[dict[str, Any]] = [
    {"name": "skip-log-bin", "kind": "option", "baseline": None, "variant": "", "variables": ["log_bin"],
     "known": None, "revert": {"add_options": {"skip-log-bin": None}}, "lines": ["skip-log-bin"]},
    {"name": "innodb-file-per-table", "kind": "option", "baseline": "ON", "variant": "OFF",
     "variables": [], "known": "a changed default", "revert": {"redo_log": "disabled"}, "lines": []},
]  # fmt: skip
OLD_UNTESTABLE = [{"name": "x", "reason": "refused", "baseline": "1", "variant": "2"}]
OLD_STEPS: list[dict[str, Any]] = [
    {"step": 1, "run_id": 41, "subsets": [["skip-log-bin"], ["x"]], "phase": "step",
     "gap": GAP.model_dump(mode="json") if GAP else None, "tests_done": True,
     "tests": [
         {"subset": ["skip-log-bin"], "share": 0.6, "low": 0.5, "high": 0.7, "closes": False,
          "verdict": CLOSER.model_dump(mode="json") if CLOSER else None},
         {"subset": ["x"], "share": None, "low": None, "high": None, "closes": False, "error": "unknown 'x'"},
     ]},
    {"step": 2, "run_id": 42, "subsets": [["a"]]},  # before phases, still running
]  # fmt: skip
OLD_PROGRESS = {"phase": "step", "runs_done": 1, "minutes": 1.5, "current_run_id": 42, "message": "step 2"}


def _oracle(subsets: list[Subset]) -> dict[Subset, Outcome]:
    effects = {"skip-log-bin": 0.2, "innodb-file-per-table": 0.85}
    return {s: Outcome(sum(effects.get(n, 0.0) for n in s), 0.0, 1.0, False) for s in subsets}


def _old_result() -> dict[str, Any]:
    found = search(NAMES, _oracle)
    beside(found, _oracle, batch=2, runs=2)
    built = report.build(found, {c["name"]: c for c in OLD_CANDIDATES}, 0.8, runs=4, minutes=1.0)
    return {**built, "refused": [{"name": "x", "reason": "unknown variable 'x'"}]}


@pytest.fixture
def old_row(database: None) -> Iterator[int]:
    """An attribution's id with its JSON columns as stored before they were typed."""
    origin = Experiment(name="old-attribution", workload="insert-truncate", iterations=1, variants=[])
    with sync_session() as session:
        run = Run(experiment=origin, status=JobStatus.succeeded)
        session.add(run)
        session.flush()
        session.add(row := Attribution(run_id=run.id, variant="b", baseline="a", status=JobStatus.succeeded))
        session.commit()
        ids = (row.id, run.id, run.experiment_id)
    write_raw("attribution", ids[0], candidates=OLD_CANDIDATES, untestable=OLD_UNTESTABLE, steps=OLD_STEPS,
              progress=OLD_PROGRESS, result=_old_result())  # fmt: skip
    yield ids[0]
    with sync_session() as session:
        session.delete(session.get_one(Attribution, ids[0]))
        session.delete(session.get_one(Run, ids[1]))
        session.delete(session.get_one(Experiment, ids[2]))
        session.commit()


def test_an_attributions_json_stored_before_reads_as_its_models(old_row: int) -> None:
    with sync_session() as session:
        row = session.get_one(Attribution, old_row)
        assert all(isinstance(c, CandidateRead) for c in row.candidates)
        assert row.candidates[0].revert.add_options == {"skip-log-bin": None}
        assert row.candidates[1].revert.redo_log == "disabled"
        assert row.untestable == [UntestableRead.model_validate(OLD_UNTESTABLE[0])]
        first, running = row.steps
        assert isinstance(first, StepRead) and first.gap == GAP and first.tests is not None
        assert first.tests[0].verdict == CLOSER and first.tests[1].error == "unknown 'x'"
        assert (running.phase, running.tests, running.tests_done) == (None, None, False)
        assert isinstance(row.progress, AttributionProgress) and row.progress.current_run_id == 42
        assert isinstance(row.result, AttributionResult) and row.result.refused[0].name == "x"
        assert row.result == AttributionResult.model_validate(_old_result())


def test_an_attributions_export_reads_the_models_as_it_read_the_dicts(old_row: int) -> None:
    with sync_session() as session:
        csv = service.export_csv(session.get_one(Attribution, old_row)).splitlines()
    result = _old_result()
    assert csv[0] == "kind,name,share,low,high,detail"
    members = [line for line in csv if line.startswith("member,")]
    assert [line.split(",")[1] for line in members] == [m["name"] for m in result["members"]]
    unexplained = "" if result["unexplained"] is None else str(result["unexplained"])
    assert f"unexplained,,{unexplained},,,{result['outcome']}" in csv
    assert csv[-2:] == ["step,run 41,0.6,0.5,0.7,skip-log-bin", "step,run 41,,,,x"]


def test_an_attribution_written_again_keeps_what_its_json_meant(old_row: int) -> None:
    columns = ("candidates", "untestable", "steps", "progress", "result")
    stored = write_again(Attribution, old_row, *columns)  # written again as the models
    old = {"candidates": OLD_CANDIDATES, "untestable": OLD_UNTESTABLE, "steps": OLD_STEPS,
           "progress": OLD_PROGRESS, "result": _old_result()}  # fmt: skip
    for column in columns:
        assert _kept(old[column], stored[column]), column


def _kept(old: Any, new: Any) -> bool:
    """Every value of `old` is in `new` unchanged (new may add keys with their models' defaults)."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(
            key in new and _kept(value, new[key]) for key, value in old.items()
        )
    if isinstance(old, list):
        return isinstance(new, list) and len(old) == len(new) and all(map(_kept, old, new))
    return bool(old == new)
