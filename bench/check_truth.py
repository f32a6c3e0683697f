"""Issue 45's truth set: can a lead trust a capture check? Staging servers the script plants by hand
(configurations, accounts, schemas and workloads of their own, none taken from a test), captured and
checked through the product (API, queue, worker), each planted item with the finding it must give;
it prints recall (planted items found) and precision per severity class (findings that are neither
planted nor real, each listed with why it is false).

    staging-mariadb   MariaDB 10.11 as the issue's team built it: innodb_defragment=1,
                      old_alter_table=1, innodb_change_buffering=all, sql_mode with
                      NO_AUTO_CREATE_USER; accounts on mysql_native_password and ed25519, an
                      anonymous account and a role; columns qualify, rank, lateral; a view, a
                      procedure naming qualify unquoted, a SEQUENCE, a system-versioned table, a
                      trigger, an event; 21 statements run 400 times each. Checked against
                      mariadb-11.8 and mysql-9.7.
    staging-stock     MariaDB 10.11 as installed, performance_schema on and its statement history
                      off (MariaDB's consumers' defaults): the workload is digest texts only; an
                      Aria table and UUID / INET6 columns. Checked against mysql-9.7 and mariadb-11.8.
    staging-mysql     MySQL 9.7 with sql_require_primary_key=ON and innodb_redo_log_capacity set,
                      an account on caching_sha2_password, a functional index, a procedure using
                      VALUES ROW(), statements using ->>, LATERAL and TABLE. Checked against
                      mariadb-11.8 and mysql-9.7 (the same version: a control, nothing may be found
                      that stops, locks out or does not load).

A finding is planted when a planted item's matcher takes it (one item may give several: the
sql_mode value refused and the SET of the routines created under it). Any other finding is judged:
a default or character-set change is real when the lab's two servers, started bare (no option of
the team's), show different values for it (ON/1/TRUE, OFF/0/FALSE and case spell one value; a flag
list is compared flag by flag); a name that no longer parses is real when the new bare server's
parser refuses it where it stands and the old one's takes it; an account locked out is false when
it names an anonymous account, a role or MariaDB's locked mariadb.sys (no login); anything else not
planted (an option, a statement, a note) is false, listed for a look. Goals: recall 100 %; no false
finding in does_not_start and locks_out; at most 5 % false in every other class.

Run by hand (root, the lab installed), one at a time, from the repository root:
    .venv/bin/python bench/check_truth.py [--json OUT] [--only staging-mysql]
Ports: BENCH_PORT_OFFSET (bench/instance.py) for the instance and its lab targets; the staging
servers on 31531-31533, the bare servers on 31534-31536 (below the ephemeral range: a client's port
once took one). Results: bench/README.md ("check_truth.py").
"""

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))

import httpx
import instance
import pymysql
from check_truth_plants import PASSWORD, READER, STAGING, Staging
from power_checks import commit, load_average, wait
from sqlalchemy import select

from upgradelab.captures.findings import SEVERITIES
from upgradelab.captures.lab_binaries import binary_defaults
from upgradelab.db import sync_session
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner

STRICT = ("does_not_start", "locks_out")  # no false finding at all
MAX_FALSE_SHARE = 0.05  # the other classes
BARE_PORTS = {"mariadb-10.11": 31534, "mariadb-11.8": 31535, "mysql-9.7": 31536}


def lab_target(name: str) -> Target:
    """The instance's seeded lab target `name` (its binary, flavor and settings)."""
    with sync_session() as session:
        found = session.scalars(select(Target).where(Target.name == name)).one()
        session.expunge(found)
        return found


def provisioner(name: str, lab: str, port: int) -> LocalProvisioner:
    """A server of lab target `lab`'s binary as `name` on `port` (its own template and datadir)."""
    target = lab_target(lab)
    return LocalProvisioner(name, target.flavor, {**target.settings.stored(), "port": port}, get_settings())


def sql(server: LocalProvisioner, *statements: str) -> None:
    connection = server.endpoint.connect()
    try:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
                cursor.fetchall()
    finally:
        connection.close()


def plant(staging: Staging) -> LocalProvisioner:
    """Start `staging`'s server with its options, plant its schema and accounts, run its workload."""
    server = provisioner(staging.name, staging.lab, staging.port)
    server.start(staging.options)
    sql(server, "CREATE DATABASE labdb", *staging.setup, *staging.reader_grants)
    sql(server, "TRUNCATE performance_schema.events_statements_summary_by_digest")
    connection = server.endpoint.connect()  # the team's client: one connection, as an application's
    try:
        with connection.cursor() as cursor:
            for turn in range(max(times for _, times in staging.workload)):
                for statement, times in staging.workload:
                    if turn < times:
                        cursor.execute(statement)
                        cursor.fetchall()
    finally:
        connection.close()
    return server


def capture_and_check(client: httpx.Client, staging: Staging) -> dict[str, Any]:
    """`staging` added as an existing target (the read-only account), captured, then checked against
    each of its checks: {"capture": ..., "checks": {target: check}}."""
    settings = {
        "host": "127.0.0.1",
        "port": staging.port,
        "user": READER,
        "password": PASSWORD,
        "database": "labdb",
    }
    body = {
        "name": staging.name,
        "flavor": lab_target(staging.lab).flavor,
        "provisioner": "existing",
    }
    added = client.post("/api/targets", json={**body, "settings": settings})
    assert added.status_code == 201, added.text
    created = client.post("/api/captures", json={"target": staging.name})
    assert created.status_code == 201, created.text
    capture = wait(client, f"/api/captures/{created.json()['id']}", 900)
    assert capture["status"] == "succeeded", capture["error"]
    checks = {}
    for target in staging.checks:
        started = time.monotonic()
        made = client.post(f"/api/captures/{capture['id']}/checks", json={"target": target})
        assert made.status_code == 201, made.text
        check = wait(client, f"/api/captures/{capture['id']}/checks/{made.json()['id']}", 900)
        assert check["status"] == "succeeded", check["error"]
        check["_seconds"] = round(time.monotonic() - started, 1)
        checks[target] = check
    return {"capture": capture, "checks": checks}


@dataclass
class Bare:
    """A lab binary started bare (the lab's own options only): its `values` (SHOW GLOBAL VARIABLES),
    whether its parser takes each probed word unquoted as a column (`parses`), the collation a new
    utf8mb4 column gets (`utf8mb4`), and its `--verbose --help` defaults (`help`: for the variables
    the lab's sandbox sets on every server it starts, whose running value is the lab's), and which
    sql_mode values it takes (`modes`)."""

    values: dict[str, str]
    parses: dict[str, bool]
    utf8mb4: str
    help: dict[str, str | None]
    modes: dict[str, bool]


PROBED = ("qualify", "rank", "lateral", "vector", "offset", "window", "manual", "library")
MODES = (
    "NO_AUTO_CREATE_USER", "TIME_ROUND_FRACTIONAL", "ONLY_FULL_GROUP_BY", "STRICT_TRANS_TABLES",
    "ERROR_FOR_DIVISION_BY_ZERO", "NO_ENGINE_SUBSTITUTION", "NO_ZERO_DATE", "NO_ZERO_IN_DATE",
    "ANSI_QUOTES", "ORACLE", "EMPTY_STRING_IS_NULL", "SIMULTANEOUS_ASSIGNMENT", "PAD_CHAR_TO_FULL_LENGTH",
)  # fmt: skip
# the lab's sandbox options (targets/provisioners/base.py SANDBOX_OPTIONS) as variables
SANDBOXED = {"local_infile", "have_symlink"}


def bare_values(lab: str) -> Bare:
    """Lab target `lab`'s binary started bare, asked (Bare), stopped."""
    server = provisioner(f"bare-{lab}", lab, BARE_PORTS[lab])
    server.start([])
    connection = server.endpoint.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SHOW GLOBAL VARIABLES")
            values = {str(name).lower(): str(value) for name, value in cursor.fetchall()}
            cursor.execute("CREATE DATABASE truth_probe")
            cursor.execute("CREATE TABLE truth_probe.t (a VARCHAR(1) CHARACTER SET utf8mb4)")
            cursor.execute(
                "SELECT COLLATION_NAME FROM information_schema.COLUMNS "
                "WHERE TABLE_SCHEMA = 'truth_probe' AND TABLE_NAME = 't'"
            )
            utf8mb4 = str(cursor.fetchone()[0])
        parses = {word: _takes(connection, f"SELECT {word} FROM DUAL WHERE 1 = 0") for word in PROBED}
        modes = {mode: _takes(connection, f"SET SESSION sql_mode = '{mode}'") for mode in MODES}
    finally:
        connection.close()
        server.stop()
    return Bare(values, parses, utf8mb4, binary_defaults(lab_target(lab), get_settings()).values, modes)


def _takes(connection: Any, statement: str) -> bool:
    """Whether the server takes `statement` (a parse error or a refused value: False)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(statement)
    except pymysql.MySQLError as error:
        return error.args[0] not in (1064, 1231)
    return True


_SAME = {"on": "1", "true": "1", "yes": "1", "off": "0", "false": "0", "no": "0"}


def normal(value: str | None) -> Any:
    """A variable's value as one spelling: booleans, case, a list's order."""
    if value is None:
        return None
    text = value.strip().lower()
    if "," in text:
        return frozenset(normal(part) for part in text.split(","))
    return _SAME.get(text, text)


def flags(value: str | None) -> dict[str, str]:
    return dict(part.split("=", 1) for part in (value or "").lower().split(",") if "=" in part)


def _setting(variable: str, flag: str | None, old: Bare, new: Bare) -> tuple[bool, str]:
    """Whether a default changed between the two bare servers (module docstring)."""
    if variable in ("default_collation_for_utf8mb4", "character_set_collations"):
        return old.utf8mb4 != new.utf8mb4, f"a new utf8mb4 column: {old.utf8mb4} -> {new.utf8mb4}"
    if variable in SANDBOXED:
        one, two = old.help.get(variable), new.help.get(variable)
        return normal(one) != normal(two), f"{variable} (the lab's sandbox sets it): help {one} -> {two}"
    before, after = old.values.get(variable), new.values.get(variable)
    if after is None:
        return False, f"{variable}: the new bare server has no such variable"
    if flag is not None and "=" in (before or "") and "=" in after:
        one, two = flags(before).get(flag), flags(after).get(flag)
        return one != two, f"{variable} flag {flag}: bare {one} -> {two}"
    return normal(before) != normal(after), f"{variable}: bare old {before!r}, bare new {after!r}"


def judge(finding: dict[str, Any], old: Bare, new: Bare) -> tuple[bool, str]:
    """(real, why) of a finding no planted item takes (module docstring)."""
    kind, subject, severity = finding["kind"], finding["subject"], finding["severity"]
    if kind == "sql_mode":
        mode = subject.split()[0].upper()
        if mode in new.modes:
            real = old.modes[mode] and not new.modes[mode]
            return real, f"sql_mode {mode}: old bare takes it {old.modes[mode]}, new {new.modes[mode]}"
        return False, f"sql_mode {mode}: not judged (no bare probe for it)"
    if kind in ("default", "charset") or (
        severity.startswith("changes") and kind not in ("option", "identifier")
    ):
        name = re.match(r"[a-z_0-9]+", subject.lower())
        if name is None:
            return False, f"{kind}: no variable named"
        flag = re.search(r"\b([a-z_]+)=", subject[name.end() :].lower())
        return _setting(name.group(0), flag.group(1) if flag else None, old, new)
    if kind == "identifier":
        word = subject.split()[1].lower() if len(subject.split()) > 1 else ""
        if word in new.parses:
            real = old.parses[word] and not new.parses[word]
            return real, f"{word} unquoted: old bare parses {old.parses[word]}, new {new.parses[word]}"
        return False, f"{word}: not judged (no bare probe for it)"
    if kind == "account":
        names = re.findall(r"'([^']*)'@'([^']*)'", subject)
        odd = [f"'{u}'@'{h}'" for u, h in names if u in ("", "PUBLIC", "app_reader", "mariadb.sys")]
        if odd:
            return False, f"names {', '.join(odd)}: no login (anonymous, a role, a locked system account)"
        return True, "every account named is a login whose plugin the new version lacks"
    return False, "not planted: the team never set or wrote it (listed for a look)"


def score(results: dict[str, Any], bare: dict[str, Any]) -> bool:
    """Print recall per planted item and precision per severity class; True when the goals are met."""
    found_items, total_items = 0, 0
    per_class: dict[str, list[int]] = {severity: [0, 0] for severity in SEVERITIES}  # [findings, false]
    falses: list[str] = []
    for staging in STAGING:
        if staging.name not in results:
            continue
        for target, check in results[staging.name]["checks"].items():
            items = [p for p in staging.planted if p.check == target]
            print(f"\n{staging.name} -> {target} (check #{check['id']}, {check['_seconds']} s): "
                  f"{len(check['ordered'])} findings")  # fmt: skip
            taken: set[int] = set()
            for planted in items:
                hits = [
                    i for i, f in enumerate(check["ordered"])
                    if f["severity"] in planted.severities and planted.kind in (None, f["kind"])
                    and re.search(planted.subject, f["subject"], re.IGNORECASE)
                ]  # fmt: skip
                taken.update(hits)
                total_items += 1
                found_items += bool(hits)
                where = (
                    f"{check['ordered'][hits[0]]['severity']}: {check['ordered'][hits[0]]['subject'][:70]}"
                    if hits
                    else "MISSED"
                )
                print(f"  {'found ' if hits else 'MISSED'}  {planted.item}  [{where}]")
            old, new = bare[staging.lab], bare[target]
            for i, finding in enumerate(check["ordered"]):
                per_class.setdefault(finding["severity"], [0, 0])
                per_class[finding["severity"]][0] += 1
                # a locks_out finding names its accounts: a planted one's others are judged too
                if i in taken and finding["severity"] != "locks_out":
                    continue
                real, why = judge(finding, old, new)
                if not real:
                    per_class[finding["severity"]][1] += 1
                    falses.append(f"{staging.name} -> {target}: {finding['severity']} {finding['kind']} "
                                  f"{finding['subject'][:90]}: {why}")  # fmt: skip
    recall = found_items / total_items if total_items else 0.0
    print(f"\nrecall: {found_items}/{total_items} planted items found ({100 * recall:.0f} %)")
    print("precision per severity class (findings, false, false share):")
    goals = [recall == 1.0]
    for severity, (count, false) in per_class.items():
        share = false / count if count else 0.0
        goal = false == 0 if severity in STRICT else share <= MAX_FALSE_SHARE
        goals.append(goal)
        mark = "PASS" if goal else "FAIL"
        print(f"  {mark}  {severity:<20} {count:>4} findings, {false:>3} false ({100 * share:.1f} %)")
    print("false findings:" if falses else "false findings: none")
    for line in falses:
        print(f"  {line}")
    passed = all(goals)
    print(f"\ncheck_truth: {'PASS' if passed else 'FAIL'} (commit {commit()}, load average {load_average()})")
    return passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="save every capture and check here")
    parser.add_argument("--only", nargs="*", help="staging servers to run (default: all)")
    args = parser.parse_args()
    chosen = [s for s in STAGING if not args.only or s.name in args.only]
    print(
        f"check_truth: {', '.join(s.name for s in chosen)} (commit {commit()}, load average {load_average()})"
    )
    results: dict[str, Any] = {}
    with (
        instance.instance(worker=True) as api,
        httpx.Client(base_url=api, headers=instance.auth_headers(), timeout=60) as client,
    ):
        for staging in chosen:
            started = time.monotonic()
            server = plant(staging)
            try:
                results[staging.name] = capture_and_check(client, staging)
            finally:
                server.stop()
            print(f"{staging.name}: planted, captured and checked in {time.monotonic() - started:.0f} s")
        labs = {s.lab for s in chosen} | {t for s in chosen for t in s.checks}
        bare = {lab: bare_values(lab) for lab in sorted(labs)}
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    sys.exit(0 if score(results, bare) else 1)


if __name__ == "__main__":
    main()
