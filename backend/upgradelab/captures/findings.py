"""One severity order across a check's findings, and its CSV export.

    does_not_start        a setting the new binary refuses (the server stops at start)
    locks_out             accounts whose authentication plugin the new version lacks or has not loaded
    does_not_load         statements of the captured schema the new version refuses (a table, a
                          sequence, a routine's body: captures/schema_load.py) and captured
                          statements its parser refuses (captures/statement_parse.py)
    changes_results       names that no longer parse, sql_mode values refused, character set and
                          collation defaults that change, changed defaults of result settings
                          (captures/schema_check.py RESULT_VARIABLES)
    changes_performance   changed defaults of the other settings; settings the new version takes
                          with a warning that they were removed or deprecated (they do nothing now)

    note                  why the captured workload is empty or not all replayable, with its fix

Settings taken as they are, plugins available and lines not tried are no findings (the check's
`findings` still lists them). Every finding carries its one-line `action`.
"""

import csv
import io
from typing import Any, Literal

from pydantic import BaseModel

from upgradelab.captures.sql_text import head

Severity = Literal[
    "does_not_start",
    "locks_out",
    "does_not_load",
    "changes_results",
    "changes_behaviour",
    "changes_performance",
    "note",
]
SEVERITIES: tuple[Severity, ...] = (
    "does_not_start",
    "locks_out",
    "does_not_load",
    "changes_results",
    "changes_behaviour",
    "changes_performance",
    "note",
)
CSV_COLUMNS = ("severity", "kind", "subject", "outcome", "evidence", "action")
# what a check's CSV is about, on every row: the capture, its target and version, the new version
CHECK_COLUMNS = ("capture", "captured_target", "captured_version", "check_target", "check_server")
EVIDENCE_SQL_CHARS = 1500  # a statement shown in a finding's evidence is cut here
ALSO_SHOWN = 10  # lines of what else a refused statement keeps from loading
PLACES_SHOWN = 8  # places named in an identifier's action (all counted)


class Finding(BaseModel):
    """One finding: its `severity`, `kind` (option, account, identifier, sql_mode, charset,
    default), `subject` (what it is about), `outcome`, `evidence` (the server's words, or the two
    binaries' values) and `action`: one line saying what to do ("" on a check stored before)."""

    severity: Severity
    kind: str
    subject: str
    outcome: str
    evidence: str
    action: str = ""


def _options(rows: list[dict[str, Any]]) -> list[Finding]:
    severity: dict[str, Severity] = {"refused": "does_not_start", "deprecated": "changes_performance"}
    return [
        Finding(
            severity=severity[row["outcome"]],
            kind="option",
            subject=row["line"] or row["name"],
            outcome=row["outcome"],
            evidence=row["words"],
        )
        for row in rows
        if row["outcome"] in severity
    ]


def _accounts(rows: list[dict[str, Any]]) -> list[Finding]:
    return [
        Finding(
            severity="locks_out",
            kind="account",
            subject=f"{row['plugin']}: {', '.join(row['accounts'])}",
            outcome=row["outcome"],
            evidence=row["words"],
        )
        for row in rows
        if row["outcome"] in ("missing", "not_loaded")
    ]


def _identifiers(rows: list[dict[str, Any]]) -> list[Finding]:
    out = []
    for row in rows:
        where = f"{row['schema_name']}.{row['table']}" if row.get("table") else row["schema_name"]
        places: list[str] = row.get("places") or []
        if places:
            shown = "; ".join(places[:PLACES_SHOWN]) + ("; ..." if len(places) > PLACES_SHOWN else "")
            action = f"quote `{row['name']}` in these {len(places)} places: {shown}"
        else:
            action = f"quote `{row['name']}` (backticks) wherever the team's SQL names this {row['kind']}"
        out.append(
            Finding(
                severity="changes_results",
                kind="identifier",
                subject=f"{row['kind']} {row['name']} ({where})",
                outcome="no_longer_parses",
                evidence=f"{row['probe']} -> {row['words']}",
                action=action,
            )
        )
    return out


def _sql_modes(rows: list[dict[str, Any]]) -> list[Finding]:
    return [
        Finding(
            severity="changes_results",
            kind="sql_mode",
            subject=row["mode"],
            outcome="refused",
            evidence=("the team sets it: " if row["team_sets"] else "the old default: ") + row["words"],
        )
        for row in rows
    ]


def _charsets(rows: list[dict[str, Any]]) -> list[Finding]:
    return [
        Finding(
            severity="changes_results",
            kind="charset",
            subject=row["name"],
            outcome=f"{row['old'] or '(none)'} -> {row['new'] or '(none)'}",
            evidence=row["words"],
        )
        for row in rows
    ]


def _defaults(rows: list[dict[str, Any]]) -> list[Finding]:
    out = []
    for row in rows:
        team, lab = row.get("team_host_default"), row.get("lab_host_default")
        if team is not None and team["value"] is not None:
            evidence = f"the team runs with {row['old_default']}; new default for its host {team['value']}"
        else:
            evidence = f"old binary's default {row['old_default']}, new binary's {row['new_default']}"
        if row["host_dependent"]:
            evidence += _hosts(team, lab, row["lab_host_value"])
        severity: Severity = "changes_results" if row["affects"] == "results" else "changes_performance"
        resolved = not row["host_dependent"] or (team is not None and team["value"] is not None)
        out.append(
            Finding(
                severity=severity,
                kind="default",
                subject=row["name"],
                outcome="changed" if resolved else "host_dependent",
                evidence=evidence,
            )
        )
    return out


def _hosts(team: dict[str, Any] | None, lab: dict[str, Any] | None, took: str | None) -> str:
    """Both hosts' resolutions in words (a check made before they were resolved: the lab's value)."""
    if team is None or lab is None:
        return f"; computed from the host: {took} on the lab's host"
    if team["value"] is None and team["words"] == lab["words"]:  # no formula: one reason for both
        return f"; {team['words']}; the lab's server took {took}"
    return (
        f"; computed from the host: the team's host: {team['words']}; the lab's host: {lab['words']}"
        f" (its server took {took})"
    )


def _loads(rows: list[dict[str, Any]]) -> list[Finding]:
    out = []
    for row in rows:
        also: list[str] = row.get("also") or []
        times = int(row.get("times") or 1)
        evidence = (
            f"line {row['line']} of the dump: {row['words']}\n{_cut(row['statement'], EVIDENCE_SQL_CHARS)}"
        )
        if times > 1:
            evidence += f"\n(the same statement refused {times} times)"
        evidence += "".join(f"\n{line}" for line in also[:ALSO_SHOWN])
        if len(also) > ALSO_SHOWN:
            evidence += f"\n... and {len(also) - ALSO_SHOWN} more"
        subject = f"{row['kind']} {row['name']}" if row.get("name") else head(row["statement"], 120)
        out.append(
            Finding(
                severity="does_not_load",
                kind="schema",
                subject=subject,
                outcome=row["outcome"],
                evidence=evidence,
                action=row.get("action") or "",
            )
        )
    return out


def _parses(rows: list[dict[str, Any]]) -> list[Finding]:
    return [
        Finding(
            severity="does_not_load",
            kind="statement",
            subject=f"{_cut(' '.join(row['sample'].split()), 100)} "
            f"(digest {(row.get('digest') or '-')[:16]}, {row['executions']} executions)",
            outcome="no_longer_parses",
            evidence=f"{row['asked'].upper()}: {row['words']}\n{_cut(row['sample'], EVIDENCE_SQL_CHARS)}",
            action=row.get("action") or "",
        )
        for row in rows
    ]


def _workload(trial: dict[str, Any] | None) -> list[Finding]:
    """The captured workload's problems (captures/workload_problems.py), as the trial saw them."""
    statements = (trial or {}).get("statements") or {}
    return [
        Finding(
            severity="note",
            kind="workload",
            subject="the captured workload",
            outcome="empty" if statements.get("empty") else "partly not replayable",
            evidence=problem["words"],
            action=problem["fix"],
        )
        for problem in statements.get("workload_problems") or []
    ]


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars] + " ..."


def ordered(
    options: list[dict[str, Any]] | None,
    accounts: list[dict[str, Any]] | None,
    identifiers: list[dict[str, Any]] | None,
    sql_modes: list[dict[str, Any]] | None,
    charsets: list[dict[str, Any]] | None,
    defaults: list[dict[str, Any]] | None,
    loads: list[dict[str, Any]] | None = None,
    parses: list[dict[str, Any]] | None = None,
    trial: dict[str, Any] | None = None,
) -> list[Finding]:
    """Every finding of a check (its stored lists, as JSON) in SEVERITIES order; within one severity
    in the order above (option, account, identifier, sql_mode, charset, default, then the schema's
    statements refused, the captured statements refused, the workload's notes from the schema
    `trial`), each kind's own order kept (a stable sort)."""
    found = [
        *_options(options or []),
        *_accounts(accounts or []),
        *_identifiers(identifiers or []),
        *_sql_modes(sql_modes or []),
        *_charsets(charsets or []),
        *_defaults(defaults or []),
        *_loads(loads or []),
        *_parses(parses or []),
        *_workload(trial),
    ]
    return sorted(found, key=lambda finding: SEVERITIES.index(finding.severity))


def csv_text(findings: list[Finding], about: dict[str, str] | None = None) -> str:
    """The findings as CSV: CSV_COLUMNS, then one column per `about` entry (CHECK_COLUMNS: the
    capture, its target and version, the check's target and binary), its value on every row so a
    row read alone still says what it is about. A value is text, never a formula: a leading
    = + - @ is prefixed with ', as spreadsheet injection advice says."""
    about = about or {}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*CSV_COLUMNS, *about])
    for finding in findings:
        writer.writerow(
            [_cell(getattr(finding, column)) for column in CSV_COLUMNS] + [_cell(v) for v in about.values()]
        )
    return out.getvalue()


def check_about(
    capture_id: int, source: str, source_version: str | None, target: str, server: str | None
) -> dict[str, str]:
    """The CHECK_COLUMNS of a check's CSV: capture `capture_id` of target `source` (its server's
    `source_version`), checked against `target` (its binary `server`)."""
    values = (str(capture_id), source, source_version or "", target, server or "")
    return dict(zip(CHECK_COLUMNS, values, strict=True))


def _cell(value: str) -> str:
    return f"'{value}" if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value
