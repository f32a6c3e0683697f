"""One severity order across a check's findings, and its CSV export.

    does_not_start        a setting the new binary refuses (the server stops at start)
    locks_out             login accounts whose authentication plugin the new version lacks or has not
                          loaded (roles and locked accounts are no logins; an empty plugin is the old
                          server's default: captures/account_check.py)
    does_not_load         statements of the captured schema the new version refuses (a table, a
                          sequence, a routine's body: captures/schema_load.py) and captured
                          statements its parser refuses (captures/statement_parse.py)
    changes_results       names that no longer parse, sql_mode values refused, character set and
                          collation defaults that change, changed defaults of result settings
                          (captures/default_check.py RESULT_VARIABLES)
    changes_behaviour     settings the new version takes and ignores (its help: unused, no effect; its
                          start: "does nothing now") or starts with another value than the team's: the
                          team's intent behind them is lost
    changes_performance   changed defaults of the other settings, each changed flag of a flag list a
                          finding of its own
    note                  hygiene and what the lab could not resolve: anonymous accounts exist,
                          settings the new version still takes but calls deprecated, host-dependent
                          defaults not resolved for the team's host, why the captured workload is
                          empty or not all replayable (with its fix)

Each finding carries what to do (`action`: the one stored with it, else one made from its kind).

One concept: every stored kind of a check's findings read into the one Finding shape (severity,
subject, evidence, action) and ordered; a kind's reading beside the others keeps the order and the
words of all of them in one place, and the CSV writes that one list.
Settings taken as they are, implied or not tried, plugins available and accounts that log in as no
one are no findings (the check's `findings` and `account_findings` still list them).
"""

import csv
import io
from typing import Any, Literal, get_args

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
SEVERITIES: tuple[Severity, ...] = get_args(Severity)  # most severe first
CSV_COLUMNS = ("severity", "kind", "subject", "outcome", "evidence", "action")
# what a check's CSV is about, on every row: the capture, its target and version, the new version
CHECK_COLUMNS = ("capture", "captured_target", "captured_version", "check_target", "check_server")
EVIDENCE_SQL_CHARS = 1500  # a statement shown in a finding's evidence is cut here
ALSO_SHOWN = 10  # lines of what else a refused statement keeps from loading
PLACES_SHOWN = 8  # places named in an identifier's action (all counted)


class Finding(BaseModel):
    """One finding: its `severity`, `kind` (option, account, identifier, sql_mode, charset,
    default), `subject` (what it is about), `outcome`, `evidence` (the server's words, or the two
    versions' values) and `action` (one line: what to do; '' where none is known)."""

    severity: Severity
    kind: str
    subject: str
    outcome: str
    evidence: str
    action: str = ""


_OPTION_SEVERITY: dict[str, Severity] = {
    "refused": "does_not_start",
    "no_effect": "changes_behaviour",
    "adjusted": "changes_behaviour",
    "deprecated": "note",
}


def _options(rows: list[dict[str, Any]], sql_modes: list[dict[str, Any]]) -> list[Finding]:
    out = []
    for row in rows:
        if row["outcome"] not in _OPTION_SEVERITY:
            continue
        subject = row["line"] or row["name"]
        shown = row.get("shown")
        evidence = (f"the team's server shows {row['name']}={shown}\n" if shown else "") + row["words"]
        out.append(
            Finding(
                severity=_OPTION_SEVERITY[row["outcome"]],
                kind="option",
                subject=subject,
                outcome=row["outcome"],
                evidence=evidence,
                action=_sql_mode_action(row, sql_modes) or row.get("action") or _option_action(row),
            )
        )
    return out


def _option_action(row: dict[str, Any]) -> str:
    """What to do about a setting of a check stored without its action."""
    name = row["line"] or row["name"]
    return {
        "refused": f"remove `{name}` from [mysqld]",
        "no_effect": f"remove `{name}` from [mysqld]: it has no effect on the new version",
        "adjusted": f"set `{row['name']}` to a value the new version takes",
        "deprecated": f"plan to replace `{row['name']}`: the new version calls it deprecated",
    }.get(row["outcome"], "")


def _sql_mode_action(row: dict[str, Any], sql_modes: list[dict[str, Any]]) -> str:
    """A refused sql_mode line: the values the new server refuses taken out, the rest kept."""
    if row["outcome"] != "refused" or row["name"].lower() != "sql_mode" or not sql_modes or not row["line"]:
        return ""
    refused = {mode["mode"].upper() for mode in sql_modes}
    kept = [mode for mode in row["line"].partition("=")[2].split(",") if mode.strip().upper() not in refused]
    return f"set sql_mode={','.join(kept)} in [mysqld] (without {', '.join(sorted(refused))})"


_ACCOUNT_SEVERITY: dict[str, Severity] = {
    "missing": "locks_out",
    "not_loaded": "locks_out",
    "anonymous": "note",
}


def _accounts(rows: list[dict[str, Any]]) -> list[Finding]:
    fallback = {
        "missing": "move these accounts to a plugin the new version has (ALTER USER ... IDENTIFIED WITH ...)",
        "not_loaded": "INSTALL SONAME the plugin's library on the new version before these accounts log in",
        "anonymous": "DROP USER these accounts unless a client logs in without a user name",
    }
    return [
        Finding(
            severity=_ACCOUNT_SEVERITY[row["outcome"]],
            kind="account",
            subject=(f"{row['plugin']}: " if row["plugin"] else "") + ", ".join(row["accounts"]),
            outcome=row["outcome"],
            evidence=row["words"],
            action=row.get("action") or fallback[row["outcome"]],
        )
        for row in rows
        if row["outcome"] in _ACCOUNT_SEVERITY
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
            action=(
                f"remove {row['mode']} from sql_mode in [mysqld] and from every SET sql_mode the "
                "applications send"
            ),
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
            action=(
                f"set {row['name']}={row['old']} in [mysqld] to keep what new tables get (or name the "
                "character set and collation in CREATE TABLE)"
                if row["old"]
                else f"name the collation in CREATE TABLE where new tables must not get {row['new']}"
            ),
        )
        for row in rows
    ]


def _defaults(rows: list[dict[str, Any]]) -> list[Finding]:
    out: list[Finding] = []
    for row in rows:
        team, lab = row.get("team_host_default"), row.get("lab_host_default")
        severity: Severity = "changes_results" if row["affects"] == "results" else "changes_performance"
        where = (
            "the new version's server (started by the lab with the team's settings) shows"
            if row.get("new_from") == "started"
            else "the new binary's help gives"
        )
        if row.get("flags"):
            out += [_flag(row, flag, severity, where) for flag in row["flags"]]
            continue
        if team is not None and team["value"] is not None:
            evidence = f"the team runs with {row['old_default']}; new default for its host {team['value']}"
        elif "new_from" in row:
            evidence = f"the team's server runs with {row['old_default']} (left unset); {where} "
            evidence += row["new_default"]
        else:
            evidence = f"old binary's default {row['old_default']}, new binary's {row['new_default']}"
        resolved = not row["host_dependent"] or (team is not None and team["value"] is not None)
        if row.get("resolved_on_lab"):
            evidence += (
                f" on the lab's host; no formula, but the old version gives the lab's host "
                f"{row['old_default']} as the team's host: the lab's host stands for the team's"
            )
            resolved = True
        elif row["host_dependent"]:
            evidence += _hosts(team, lab, row["lab_host_value"])
        keep = f"{row['name']}={row['old_default']}"
        action = f"to keep the old behaviour: {keep} in [mysqld] (else test the new)"
        if not resolved and "new_from" in row:  # a check of this version: unresolved is a note
            severity = "note"
            action = f"read {row['name']} on a server of the new version on your host (SHOW GLOBAL VARIABLES)"
        out.append(
            Finding(
                severity=severity,
                kind="default",
                subject=row["name"],
                outcome="changed" if resolved else "host_dependent",
                evidence=evidence,
                action=action,
            )
        )
    return out


def _flag(row: dict[str, Any], flag: dict[str, str], severity: Severity, where: str) -> Finding:
    """One changed flag of a flag list's default as a finding of its own."""
    name = row["name"]
    keep = f"{name}={row['old_default']}"
    if "=" in row["old_default"]:  # a key=value list: that flag alone
        keep = f"{name}='{flag['flag']}={flag['old']}'"
    return Finding(
        severity=severity,
        kind="default",
        subject=f"{name}: {flag['flag']}",
        outcome=f"{flag['old']} -> {flag['new']}",
        evidence=(
            f"{flag['flag']} is {flag['old']} on the team's server ({name} left unset); {where} "
            f"{flag['flag']} {flag['new']}"
        ),
        action=f"to keep the old behaviour: {keep} in [mysqld] (else test the new)",
    )


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


def workload_outcome(statements: dict[str, Any]) -> str:
    """What a check's workload note says of the captured workload, from its trial's `statements`
    (statement_parse.ParseSummary as JSON): "empty" (no digest a replay runs), "partly not
    replayable" (some digest a replay cannot run: a digest text not bound, a cut text; or not
    counted, a check made before `replayable` was kept), "all digests replayable" (each one runs,
    a digest text with its values bound: the problem then says what the capture still lacks)."""
    if statements.get("empty"):
        return "empty"
    replayable = statements.get("replayable")
    if replayable is not None and replayable >= (statements.get("digests") or 0):
        return "all digests replayable"
    return "partly not replayable"


def _workload(trial: dict[str, Any] | None) -> list[Finding]:
    """The captured workload's problems (captures/workload_problems.py), as the trial saw them."""
    statements = (trial or {}).get("statements") or {}
    return [
        Finding(
            severity="note",
            kind="workload",
            subject="the captured workload",
            outcome=workload_outcome(statements),
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
    `trial`), each kind's own order kept (a stable sort). A refused sql_mode line's action names the
    values `sql_modes` says the new server refuses, the rest kept."""
    found = [
        *_options(options or [], sql_modes or []),
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
