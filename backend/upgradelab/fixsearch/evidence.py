"""Every candidate of a fix search from its evidence, in the order of candidates.py's docstring: the
plan hints (index, join order, subquery strategy), the settings that differ and the known levers, and
the statistics; as many as the search's scope takes (`scoped`)."""

from typing import Any

from upgradelab.fixsearch.candidates import Candidate, build, plan_candidates
from upgradelab.fixsearch.effects import global_twin
from upgradelab.fixsearch.histograms import statistics_candidate
from upgradelab.fixsearch.strategies import same_settings, strategy_candidate
from upgradelab.replay.outcomes import Outcome


def gathered(
    flavor: str,
    sql: str,
    plans: tuple[Outcome, Outcome],
    variables: tuple[dict[str, str], dict[str, str]],
    columns_of: dict[str, set[str]],
    unused: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """The candidates from the first statement `sql`, its outcome on (the baseline, the variant) (their
    plans), both servers' variables, the dataset's columns ({table: columns}, the variant's) and the
    variables the variant's binary no longer uses (never candidates)."""
    base, var = plans
    settings = build(flavor, *variables, unused)
    out = plan_candidates(flavor, base.plan, var.plan)
    strategy = strategy_candidate(flavor, base.plan_json, var.plan_json, variables[1])
    if strategy is not None and not (
        strategy.settings and any(same_settings(strategy.settings, c.settings) for c in settings)
    ):
        out.append(strategy)
    out.extend(settings)
    statistics = statistics_candidate(flavor, sql, columns_of)
    if statistics is not None:
        out.append(statistics)
    return out


def only(candidates: list[Candidate], sources: list[str]) -> list[Candidate]:
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
