"""The baseline's semijoin / subquery strategy as a plan candidate (issue 34, Deliver 2): read from both
plans' EXPLAIN FORMAT=JSON (Outcome.plan_json, captured by the search on both servers), and, where
the baseline uses a strategy the variant's plan does not, a candidate that asks for it.

What the plans say (the lab servers' own JSON, tests/fixsearch/plans/):
- MySQL 9.x (explain_json_format_version 2, iterator nodes): `"semijoin_strategy": "firstmatch" |
  "loosescan" | "weedout"`; a semijoin materialization is a table `<subqueryN>` (a materialize node
  under it); a subquery materialization (IN not turned into a semijoin, run once) a table
  `<materialized_subquery>`. MySQL 8.0's format 1: `"first_match"`, `"loosescan"`,
  `"duplicates_removal"`, the same table names.
- MariaDB 11.x: `"first_match": "t"`, `"loose_scan"`, `"duplicates_removal"`, a table `<subqueryN>`
  with `"materialized"` (semijoin materialization); a subquery materialization is a `"materialization"`
  object in `"subqueries"`.

The remedy:
- MySQL: a hint in the subquery's own query block, `SELECT ... IN (SELECT /*+ SEMIJOIN(MATERIALIZATION)
  */ ...)` (the baseline's semijoin strategies, MySQL's names DUPSWEEDOUT, FIRSTMATCH, LOOSESCAN,
  MATERIALIZATION) or `SUBQUERY(MATERIALIZATION)`; written into every IN / EXISTS subquery of the
  statement (rewrite.py `subquery_hint`). Seen on MySQL 9.7: such a hint is obeyed with the session's
  optimizer_switch semijoin=off, materialization=off; the same hint in the outer block without a
  query block name is ignored without a warning, `SEMIJOIN(@nosuch ...)` warns 3127 ("Query block name
  `nosuch` is not found for SEMIJOIN hint") and the optimizer's default name spelled bare
  (`@select#2`) is a hint syntax error (warning 1064): hence the subquery's own block, no name.
- MariaDB has no such hints: the strategy's optimizer_switch flags set back for the statement (SET
  STATEMENT, rewrite.py), only those the variant has off; none off (the optimizer chose otherwise by
  cost, with every flag on): no candidate. Duplicate weedout has no flag of its own (semijoin=on).
  The caller drops it when a `differs` candidate sets the same flags already (candidates.py).
"""

import re
from typing import Any

from upgradelab.fixsearch.candidates import Candidate, switch_flags
from upgradelab.fixsearch.rewrite import remedy_text

SEMIJOIN = ("materialization", "firstmatch", "loosescan", "duplicateweedout")
SUBQUERY_MATERIALIZATION = "subquery materialization"
_SUBQUERY_TABLE = re.compile(r"^<subquery\d+>$")
# MySQL format 2's semijoin_strategy values, as the optimizer_switch flags name them
_V2 = {"firstmatch": "firstmatch", "loosescan": "loosescan", "weedout": "duplicateweedout"}
MYSQL_HINT = {"materialization": "MATERIALIZATION", "firstmatch": "FIRSTMATCH", "loosescan": "LOOSESCAN",
              "duplicateweedout": "DUPSWEEDOUT"}  # fmt: skip
# MariaDB: the optimizer_switch flags a strategy needs
MARIADB_FLAGS = {
    "materialization": ("semijoin", "materialization"),
    "firstmatch": ("semijoin", "firstmatch"),
    "loosescan": ("semijoin", "loosescan"),
    "duplicateweedout": ("semijoin",),
    SUBQUERY_MATERIALIZATION: ("materialization",),
}


def _walk(node: Any, found: set[str], under_subqueries: bool = False) -> None:
    if isinstance(node, dict):
        name = node.get("table_name")
        if isinstance(name, str) and _SUBQUERY_TABLE.match(name):
            found.add("materialization")
        if name == "<materialized_subquery>" or (
            under_subqueries and isinstance(node.get("materialization"), dict)
        ):
            found.add(SUBQUERY_MATERIALIZATION)
        strategy = node.get("semijoin_strategy")
        if isinstance(strategy, str) and strategy in _V2:
            found.add(_V2[strategy])
        if "first_match" in node:
            found.add("firstmatch")
        if node.get("loose_scan") or node.get("loosescan"):
            found.add("loosescan")
        if "duplicates_removal" in node:
            found.add("duplicateweedout")
        for key, value in node.items():
            _walk(value, found, key == "subqueries")
    elif isinstance(node, list):
        for value in node:
            _walk(value, found, under_subqueries)


def strategies(plan_json: Any) -> set[str]:
    """The semijoin and subquery strategies a plan uses (SEMIJOIN's names, SUBQUERY_MATERIALIZATION);
    set() for no plan or none."""
    found: set[str] = set()
    _walk(plan_json, found)
    return found


def mysql_hint(wanted: set[str]) -> str:
    """The hint text for the subquery's block: SEMIJOIN(...) of the semijoin strategies in `wanted`,
    else SUBQUERY(MATERIALIZATION)."""
    semijoin = [MYSQL_HINT[s] for s in SEMIJOIN if s in wanted]
    if semijoin:
        return f"SEMIJOIN({', '.join(semijoin)})"
    return "SUBQUERY(MATERIALIZATION)"


def strategy_candidate(
    flavor: str, baseline_json: Any, variant_json: Any, variant_vars: dict[str, str]
) -> Candidate | None:
    """The baseline's strategy as a candidate (module docstring), or None: the baseline uses none the
    variant's plan lacks, or (MariaDB) the variant has every flag it needs on already."""
    before, after = strategies(baseline_json), strategies(variant_json)
    missing = before - after
    if not missing:
        return None
    shown = ", ".join(sorted(missing))
    said = (f"the baseline's plan uses {', '.join(sorted(before))}; the variant's "
            f"{', '.join(sorted(after)) or 'none'}")  # fmt: skip
    # the hint asks for the baseline's semijoin strategies (all of them), else its subquery materialization
    wanted = {s for s in before if s in SEMIJOIN} or {SUBQUERY_MATERIALIZATION}
    if flavor == "mysql":
        hint = mysql_hint(wanted)
        return Candidate(f"the baseline's subquery strategy {shown}", "plan", said, {},
                         f"/*+ {hint} */ in each IN / EXISTS subquery", subquery_hint=hint,
                         extra={"strategies": sorted(missing), "subquery_hint": hint})  # fmt: skip
    if flavor == "mariadb":
        own = switch_flags(variant_vars.get("optimizer_switch"))
        flags = sorted({f for s in wanted for f in MARIADB_FLAGS[s] if own.get(f) == "off"})
        if not flags:
            return None
        settings = {"optimizer_switch": ",".join(f"{f}=on" for f in flags)}
        said = f"{said}; MariaDB has no strategy hint: its flags set back for the statement"
        return Candidate(f"the baseline's subquery strategy {shown}", "plan", said, settings,
                         remedy_text(flavor, settings), extra={"strategies": sorted(missing)})  # fmt: skip
    return None


def same_settings(a: dict[str, str], b: dict[str, str]) -> bool:
    """Two candidates' settings alike, optimizer_switch compared flag by flag (order aside)."""
    if set(a) != set(b):
        return False
    return all(
        switch_flags(a[k]) == switch_flags(b[k]) if k == "optimizer_switch" else a[k] == b[k] for k in a
    )
