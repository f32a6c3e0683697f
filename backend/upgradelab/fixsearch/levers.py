"""The documented known levers per flavor (issue 34): optimizer settings that are the usual suspects
when a plan changes across an upgrade, tried after the settings that differ between the two servers.

Each lever says what to set relative to the variant's own value (read at the search's start): an
optimizer_switch flag flipped; a variable given the value named here unless the variant has it
already. A lever the server does not know (a flag or variable of another version) is tried anyway and
ends "refused" with the server's words: the list says what was tried, the server what exists.

MySQL 9.x: the hypergraph optimizer (optimizer_switch hypergraph_optimizer; only in builds that
carry it), prefer_ordering_index (8.0.21+: the flag gh-ost#1236 was bitten by), derived_condition_pushdown
(8.0.22+), range_optimizer_max_mem_size (0: no limit, a range scan never falls back to a full scan
for want of memory), eq_range_index_dive_limit (0: always dive into the index for IN lists).
MariaDB 11.x: optimizer_adjust_secondary_key_costs (11.0's cost model adjustments; a set of flags,
'' none), optimizer_use_condition_selectivity (1: 10.3's default, without selectivity of
non-indexed columns), optimizer_prune_level (1: the heuristic pruning before 11.x's 2), the
rowid_filter and condition_pushdown_* flags.
"""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Lever:
    """A known lever: `flag` (an optimizer_switch flag, flipped) or `variable` with `value`, and the
    note shown as its source."""

    note: str
    flag: str | None = None
    variable: str | None = None
    value: str | None = None


MYSQL_LEVERS: tuple[Lever, ...] = (
    Lever("the hypergraph optimizer on or off (MySQL 9.x builds that carry it)", flag="hypergraph_optimizer"),
    Lever("prefer_ordering_index: an ordering index over a filtering one (8.0.21+)",
          flag="prefer_ordering_index"),
    Lever("derived_condition_pushdown: conditions pushed into derived tables (8.0.22+)",
          flag="derived_condition_pushdown"),
    Lever("range_optimizer_max_mem_size 0: no memory limit for range analysis",
          variable="range_optimizer_max_mem_size", value="0"),
    Lever("eq_range_index_dive_limit 0: index dives for every IN list",
          variable="eq_range_index_dive_limit", value="0"),
)  # fmt: skip

MARIADB_LEVERS: tuple[Lever, ...] = (
    Lever("optimizer_adjust_secondary_key_costs: 11.x cost adjustments off",
          variable="optimizer_adjust_secondary_key_costs", value=""),
    Lever("optimizer_use_condition_selectivity 1: no selectivity of non-indexed columns (10.3's default)",
          variable="optimizer_use_condition_selectivity", value="1"),
    Lever("optimizer_prune_level 1: the heuristic pruning before 11.x",
          variable="optimizer_prune_level", value="1"),
    Lever("rowid_filter: rowid filters on or off", flag="rowid_filter"),
    Lever("condition_pushdown_for_derived", flag="condition_pushdown_for_derived"),
    Lever("condition_pushdown_for_subquery", flag="condition_pushdown_for_subquery"),
    Lever("condition_pushdown_from_having", flag="condition_pushdown_from_having"),
)  # fmt: skip


def levers(flavor: str) -> tuple[Lever, ...]:
    """The known levers of `flavor` ("mysql", "mariadb"); () for another."""
    return {"mysql": MYSQL_LEVERS, "mariadb": MARIADB_LEVERS}.get(flavor, ())


# MariaDB 11.0's cost model (its knowledge base, "The Optimizer Cost Model from MariaDB 11.0", and
# sql/optimizer_defaults.h): costs in microseconds per engine operation, where 10.x costed one disk
# access, one key fetch and one row fetch alike at 1 and, beside them, a WHERE check at 0.20, with no
# setup cost for a scan. Each lever sets one of 11.x's knobs back to
# what the 10.x model assumed, relative to the variant's own key lookup cost where 10.x gave a ratio.
# (variable, how the value is made, the note); a value None is left out.
COST_MODEL_NOTE = "the 10.x cost model (MariaDB's 'The Optimizer Cost Model from MariaDB 11.0')"


def _relative(factor: float) -> Callable[[dict[str, str]], str | None]:
    def value(variant: dict[str, str]) -> str | None:
        try:
            lookup = float(variant["optimizer_key_lookup_cost"])
        except (KeyError, ValueError):
            return None
        return f"{factor * lookup:.6f}"

    return value


# Only the session-scoped ones: the engine costs (optimizer_disk_read_ratio, optimizer_key_compare_cost,
# the row and key costs) are GLOBAL (information_schema.SYSTEM_VARIABLES; SET STATEMENT refused them
# with 1229 on 11.8, and a SET GLOBAL left an open session's plan as it was), so neither a statement
# nor a session can carry them.
MARIADB_COST_LEVERS: tuple[tuple[str, Callable[[dict[str, str]], str | None], str], ...] = (
    ("optimizer_scan_setup_cost", lambda variant: "0",
     "no setup cost for a table or index scan, as in 10.x (11.x adds 10 us to prefer lookups)"),
    ("optimizer_where_cost", _relative(0.20),
     "a WHERE check at a fifth of a key lookup, 10.x's 0.20 to 1 (a higher cost prefers fewer row "
     "combinations)"),
)  # fmt: skip


def version_levers(
    flavor: str, baseline: dict[str, str], variant: dict[str, str]
) -> list[tuple[str, str, str]]:
    """The new version's own knobs as levers (issue 46, Deliver 7): (variable, value, note) for each
    of MariaDB 11's cost variables (MARIADB_COST_LEVERS) the variant has and the baseline lacks (new in
    its version), at what the earlier cost model assumed, unless the variant has that value already.
    MySQL's own new knob, the hypergraph optimizer (an optimizer_switch flag of 9.x builds), is a
    known lever (MYSQL_LEVERS) already; [] for MySQL."""
    if flavor != "mariadb":
        return []
    out = []
    for name, value_of, note in MARIADB_COST_LEVERS:
        value = value_of(variant)
        if name in variant and name not in baseline and value is not None and variant[name] != value:
            out.append((name, value, f"{COST_MODEL_NOTE}: {note}"))
    return out
