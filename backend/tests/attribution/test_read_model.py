"""AttributionRead typed to the last field: what report.py builds and the runner stores (JSON columns)
reads back through the API's models, gaps and step verdicts as VerdictRead; a stored shape the models
do not accept fails naming the field (no database: rows built in memory)."""

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from upgradelab.attribution import report
from upgradelab.attribution.candidates import Candidate, Untestable
from upgradelab.attribution.models import Attribution
from upgradelab.attribution.schemas import AttributionRead, AttributionResult
from upgradelab.attribution.search import Outcome, Subset, beside, search
from upgradelab.execution.status import JobStatus
from upgradelab.results.stats import verdicts

NAMES = ["skip-log-bin", "innodb-file-per-table", "a", "b"]
GAP = verdicts.read(verdicts.Interval(1.6, 1.5, 1.7, 7, "paired rounds"))
CLOSER = verdicts.read(verdicts.Interval(0.7, 0.65, 0.75, 7, "paired rounds"))


def _oracle(subsets: list[Subset]) -> dict[Subset, Outcome]:
    effects = {"skip-log-bin": 0.2, "innodb-file-per-table": 0.85}
    out = {}
    for subset in subsets:
        share = sum(effects.get(name, 0.0) for name in subset)
        out[subset] = Outcome(share, share - 0.05, share + 0.05, share >= 0.8)
    return out


def _row(**fields: Any) -> Attribution:
    assert GAP is not None and CLOSER is not None
    candidate = Candidate("skip-log-bin", "option", None, "", ["log_bin"], None, {"add_options": {"x": None}})
    step = {  # as attribution/runner.py writes it
        "step": 1, "run_id": 41, "subsets": [["skip-log-bin"], ["x"]], "phase": "step",
        "gap": GAP.model_dump(mode="json"), "tests_done": True,
        "tests": [
            {"subset": ["skip-log-bin"], "share": 0.6, "low": 0.5, "high": 0.7, "closes": False,
             "verdict": CLOSER.model_dump(mode="json")},
            {"subset": ["x"], "share": None, "low": None, "high": None, "closes": False,
             "error": "unknown 'x'"},
        ],
    }  # fmt: skip
    values: dict[str, Any] = {
        "id": 3, "run_id": 40, "variant": "tuned", "baseline": "default", "status": JobStatus.running,
        "error": None, "group": "", "metric": "seconds", "target_share": 0.8, "rounds": 7, "block": 2,
        "budget_runs": 12, "budget_minutes": 60.0, "gap": GAP, "candidates": [candidate.as_dict()],
        "untestable": [asdict(Untestable("x", "refused", "1", "2"))],
        "steps": [step, {"step": 2, "run_id": 42, "subsets": [["a"]]}],
        "progress": {"phase": "step", "runs_done": 1, "runs_budget": 12, "minutes": 1.5, "current_run_id": 42,
                     "message": "step 2"},
        "result": None,
        "created_at": datetime.now(UTC), "started_at": None, "finished_at": None,
    }  # fmt: skip
    return Attribution(**(values | fields))


def test_every_result_report_builds_reads_as_the_typed_result() -> None:
    found = search(NAMES, _oracle)
    beside(found, _oracle, batch=2, runs=2)
    built = report.build(found, {}, 0.8, runs=4, minutes=1.0)
    built["refused"] = [{"name": "x", "reason": "unknown variable 'x'"}]
    result = AttributionResult.model_validate(built)
    assert result.outcome == "explained" and result.set == ["innodb-file-per-table"]
    assert [other.name for other in result.also] == ["skip-log-bin"] and result.also[0].alone.share > 0
    assert result.beside and result.refused[0].name == "x"
    refused = search(NAMES, lambda subsets: {s: Outcome(0.0, 0.0, 0.0, False, error="no") for s in subsets})
    nothing = AttributionResult.model_validate(report.build(refused, {}, 0.8, runs=1, minutes=0.1))
    assert nothing.outcome == "cannot be tested" and nothing.set_share is None and nothing.also == []


def test_a_stored_attribution_reads_back_with_its_gaps_and_step_verdicts_as_verdicts() -> None:
    read = AttributionRead.model_validate(_row())
    assert read.gap == GAP
    first, running = read.steps
    assert first.gap == GAP and first.tests is not None
    assert first.tests[0].verdict == CLOSER and first.tests[1].error == "unknown 'x'"
    assert running.gap is None and running.tests is None and not running.tests_done  # still running
    assert read.candidates[0].revert.add_options == {"x": None} and read.untestable[0].reason == "refused"
    assert read.progress is not None and read.progress.current_run_id == 42


def test_a_step_verdict_the_model_does_not_know_fails_naming_the_field() -> None:
    row = _row()
    stored: Any = row.steps  # the JSON as stored (in memory, not validated by the column)
    stored[0]["tests"][0]["verdict"]["verdict"] = "worse"
    with pytest.raises(ValidationError, match=r"steps\.0\.tests\.0\.verdict\.verdict"):
        AttributionRead.model_validate(row)
