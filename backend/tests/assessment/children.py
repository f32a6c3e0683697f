"""Constructed children of an assessment (their read models, as the API gives them) for the report
builder's tests: a capture, a check with a finding of each area, a replay of baseline, new version
and A/A control with a break and slower fingerprints, and fix searches."""

from datetime import UTC, datetime
from typing import Any

from upgradelab.captures.schemas import CaptureRead, CheckRead
from upgradelab.fixsearch.schemas import FixSearchRead
from upgradelab.replay.schemas import ReplayRead

NOW = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)
BASE, NEW, AA = "mariadb-10.11", "mariadb-11.8", "mariadb-10.11 (A/A)"


def capture(status: str = "succeeded", error: str | None = None) -> CaptureRead:
    """Capture 3 of target "team" (MariaDB 10.11.14), nothing stored but its status."""
    return CaptureRead.model_validate(
        {
            "id": 3,
            "target": "team",
            "status": status,
            "error": error,
            "schema_only": False,
            "data_limit_mb": None,
            "flavor": "mariadb",
            "version": "10.11.14-MariaDB",
            "configuration": None,
            "accounts": None,
            "accounts_error": None,
            "workload": None,
            "identifiers": None,
            "dataset_id": None,
            "dump": None,
            "progress": None,
            "created_at": NOW,
            "started_at": NOW,
            "finished_at": NOW,
        }
    )


def check(status: str = "succeeded", error: str | None = None, **findings: Any) -> CheckRead:
    """Check 5 of capture 3 against NEW, with the findings given (each a stored list)."""
    empty: dict[str, Any] = {
        "findings": [],
        "account_findings": [],
        "identifier_findings": [],
        "sql_mode_findings": [],
        "charset_findings": [],
        "default_findings": [],
        "load_findings": [],
        "parse_findings": [],
    }
    return CheckRead.model_validate(
        {
            "id": 5,
            "capture_id": 3,
            "target": NEW,
            "status": status,
            "error": error,
            "server": "mariadbd 11.8.9",
            **empty,
            **findings,
            "created_at": NOW,
            "started_at": NOW,
            "finished_at": NOW,
        }
    )


def planted_check() -> CheckRead:
    """A check with one finding of each area, stored in the reverse of the to-do list's order."""
    return check(
        default_findings=[
            {
                "name": "innodb_io_capacity",
                "old_default": "200",
                "new_default": "1000",
                "lab_host_value": "1000",
                "host_dependent": False,
                "affects": "performance",
            },
        ],
        identifier_findings=[
            {
                "kind": "column",
                "schema_name": "shop",
                "table": "orders",
                "name": "vector",
                "probe": "SELECT vector FROM shop.orders",
                "words": "You have an error in your SQL syntax",
            },
        ],
        load_findings=[
            {
                "kind": "table",
                "name": "shop.vector",
                "outcome": "no_longer_loads",
                "statement": "CREATE TABLE vector (id int)",
                "line": 12,
                "words": "syntax error",
                "action": "rename table shop.vector or quote it",
            },
        ],
        account_findings=[
            {
                "plugin": "mysql_old_password",
                "accounts": ["'legacy'@'%'"],
                "outcome": "missing",
                "words": "plugin mysql_old_password is not on 11.8",
                "action": "",
            },
        ],
        findings=[
            {
                "name": "innodb_file_format",
                "line": "innodb_file_format=Barracuda",
                "outcome": "refused",
                "words": "[ERROR] unknown variable 'innodb_file_format=Barracuda'",
            },
        ],
    )


def _verdict(ratio: float, verdict: str) -> dict[str, Any]:
    return {
        "ratio": ratio,
        "low": ratio * 0.95,
        "high": ratio * 1.05,
        "rounds": 20,
        "method": "paired rounds",
        "mde": 0.05,
        "verdict": verdict,
        "reason": "decided",
    }


def fingerprint(
    fp_id: str, text: str, findings: list[dict[str, Any]], ratio: float | None = None
) -> dict[str, Any]:
    """A fingerprint of the replay: `findings` on NEW (FingerprintFinding each), its ratio there."""
    group = findings[0]["kind"] if findings else "same"
    return {
        "fingerprint_id": fp_id,
        "fingerprint": text,
        "group": group,
        "median_s": {BASE: 0.001, NEW: 0.002},
        "ratios": {NEW: _verdict(ratio, "regression")} if ratio else {},
        "statements": [],
        "variants": {
            NEW: {
                "group": group,
                "findings": findings,
                "cause": findings[-1].get("cause") if findings else None,
                "causes": [{"id": "reserved", "title": "a reserved word", "check": None}]
                if group == "breaks"
                else [],
            },
            AA: {"group": "same"},
        },
    }


def replay(fingerprints: list[dict[str, Any]], exit_bits: int, status: str = "succeeded") -> ReplayRead:
    """Replay 7 of BASE (baseline), NEW and AA, its report holding `fingerprints`."""
    summary = {
        "version": "11.8.9",
        "breaks": 0,
        "new_errors": 0,
        "resolved_errors": 0,
        "result_changes": 0,
        "slower": 0,
        "slower_plan_changed": 0,
        "slower_timed_out": 0,
        "faster": 0,
        "same": 0,
        "undecided": 0,
        "undecided_median_mde": None,
        "plan_changes": 1,
        "refused": 0,
        "timeouts": 0,
    }
    report = {
        "baseline": BASE,
        "variants": [],
        "groups": {},
        "exit_bits": exit_bits,
        "statements": 3,
        "fingerprints": fingerprints,
        "aa_control": AA,
        "summary": [{**summary, "variant": NEW}, {**summary, "variant": AA, "plan_changes": 0}],
    }
    return ReplayRead.model_validate(
        {
            "id": 7,
            "name": "assessment 1",
            "dataset": "shop",
            "status": status,
            "source_format": "sql",
            "variants": [],
            "rounds": 20,
            "sample": 5,
            "allow_writes": False,
            "statements": 3,
            "skipped_writes": [],
            "progress": None,
            "error": None,
            "created_at": NOW,
            "ended_at": NOW,
            "report": report if status == "succeeded" else None,
        }
    )


def planted_replay() -> ReplayRead:
    """A break, a slower fingerprint with a proven fix (fix search 11), one without (fix search 12)."""
    slower = {"kind": "slower", "cause": {"kind": "plan change", "text": "plan changed: range -> ALL"}}
    return replay(
        [
            fingerprint("a" * 32, "SELECT * FROM orders WHERE id = ?", []),
            fingerprint("b" * 32, "SELECT vector FROM orders", [{"kind": "breaks"}]),
            fingerprint("c" * 32, "SELECT * FROM orders WHERE day > ?", [slower], ratio=3.5),
            fingerprint("d" * 32, "SELECT COUNT(*) FROM items", [slower], ratio=1.4),
        ],
        exit_bits=1 | 2 | 4,
    )


def fix_search(search_id: int, fp_id: str, outcome: str, remedy: str | None) -> FixSearchRead:
    """Fix search `search_id` of replay 7's `fp_id` on NEW, ended with `outcome` and `remedy`."""
    return FixSearchRead.model_validate(
        {
            "id": search_id,
            "replay_id": 7,
            "fingerprint_id": fp_id,
            "fingerprint": "",
            "variant": NEW,
            "baseline": BASE,
            "status": "succeeded",
            "error": None,
            "rounds": 5,
            "passes": 1,
            "budget_rounds": 60,
            "budget_scaled": False,
            "budget_minutes": 10.0,
            "try_all": False,
            "tolerance": 0.1,
            "scope": "statement",
            "sources": [],
            "side_rounds": 0,
            "side_minutes": 0.0,
            "statement_timeout_s": 30.0,
            "candidates": [],
            "tried": [],
            "progress": None,
            "result": {
                "outcome": outcome,
                "remedy": remedy,
                "tried": 3,
                "not_tried": [],
                "rounds": 15,
                "minutes": 2.0,
            },
            "created_at": NOW,
            "started_at": NOW,
            "finished_at": NOW,
        }
    )
