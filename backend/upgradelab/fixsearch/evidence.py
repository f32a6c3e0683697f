"""Every candidate of a fix search from its evidence, in the order of candidates.py's docstring: the
plan hints (index, join order, subquery strategy; through a view, its body inlined), the settings that
differ and the levers, then the schema changes a second instance of the variant measures (a view
rewritten, an index, the statistics); as many as the search's scope takes (`scoped`)."""

from collections.abc import Sequence
from typing import Any

from upgradelab.fixsearch.candidates import Candidate, build, plan_candidates
from upgradelab.fixsearch.effects import global_twin
from upgradelab.fixsearch.histograms import statistics_candidate
from upgradelab.fixsearch.indexes import Schema, filtered_through_views, index_candidates
from upgradelab.fixsearch.rewrite import RewriteError, apply_remedy
from upgradelab.fixsearch.strategies import same_settings, strategy_candidate
from upgradelab.fixsearch.views import inlined_candidate, view_candidate
from upgradelab.measurement import Outcome


def _carried(flavor: str, sql: str, candidate: Candidate) -> bool:
    try:
        apply_remedy(sql, flavor, {}, candidate.indexes, candidate.join_order)
    except RewriteError:
        return False
    return True


def gathered(
    flavor: str,
    sql: str,
    plans: tuple[Outcome, Outcome],
    variables: tuple[dict[str, str], dict[str, str]],
    schema: Schema,
    database: str,
    unused: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """The candidates from the first statement `sql`, its outcome on (the baseline, the variant) (their
    plans), both servers' variables, the variant's schema of the statement's `database`
    (catalog.py) and the variables the variant's binary no longer uses (never candidates). A
    statement over a view gets the view's candidates (views.py) instead of the index and join-order
    hints its own text cannot carry."""
    base, var = plans
    settings = build(flavor, *variables, unused)
    out = plan_candidates(flavor, base.plan, var.plan)
    if schema.views:
        out = [c for c in out if _carried(flavor, sql, c)]
        for view in schema.views.values():
            inlined = inlined_candidate(view, sql, base.plan, var.plan)
            if inlined is not None:
                out.append(inlined)
    strategy = strategy_candidate(flavor, base.plan_json, var.plan_json, variables[1])
    if strategy is not None and not (
        strategy.settings and any(same_settings(strategy.settings, c.settings) for c in settings)
    ):
        out.append(strategy)
    out.extend(settings)
    for view in schema.views.values():
        rewritten = view_candidate(view, base.plan, var.plan)
        if rewritten is not None:
            out.append(rewritten)
    out.extend(index_candidates(database, sql, schema, base.plan, var.plan))
    statistics = statistics_candidate(flavor, sql, schema.columns, filtered_through_views(sql, schema))
    if statistics is not None:
        out.append(statistics)
    return out


def only(candidates: list[Candidate], sources: Sequence[str]) -> list[Candidate]:
    """The candidates of `sources` (candidates.SOURCES: the search's `sources`), in their order."""
    return [c for c in candidates if c.source in sources]


def scoped(candidates: list[Candidate], scope: str) -> list[Candidate]:
    """The candidates a search of `scope` tries: "statement" the statement-level ones, "global" the
    global ones and the global twins of the rest (an index hint has none: left out), "both" all."""
    if scope == "statement":
        return [c for c in candidates if c.scope == "statement"]
    if scope == "global":
        out: list[Any] = [c if c.scope == "global" else global_twin(c) for c in candidates]
        return [c for c in out if c is not None]
    return candidates
