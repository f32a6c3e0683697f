"""The candidates of a fix search, from evidence, in the order they are tried (issue 34, Deliver 2):

0. `plan`: the baseline's plan as a hint, when the variant's plan (both captured by the search) uses
   another index on a table: the baseline's index on each such table (rewrite.py `index_hint`: MySQL
   INDEX, MariaDB FORCE INDEX); from the fingerprint's first statement (its sampled statements share
   one shape). Tables the server makes itself (`<subquery2>`, `<derived3>`) are left out. Then the
   baseline's join order, when both plans join the same tables (two or more) in another order
   (rewrite.py `join_order_hint`: MySQL JOIN_ORDER, MariaDB STRAIGHT_JOIN with the FROM list
   reordered where that is safe; a statement that cannot carry it is tried and refused, saying why).
   Then the baseline's semijoin / subquery strategy where the variant's plan lacks it (strategies.py:
   MySQL a SEMIJOIN / SUBQUERY hint in the subquery, MariaDB its optimizer_switch flags, left out
   when a `differs` candidate sets the same).
1. `differs`: every optimizer_switch flag and optimizer variable (OPTIMIZER_VARIABLES) whose value on
   the variant differs from the baseline's, read from both servers at the search's start (SHOW
   SESSION VARIABLES on each side's replay connection: defaults, startup options and the variant's
   own SET SESSION alike), set back to the baseline's value for the statement only: flags one by
   one, then all differing flags together; then the variables one by one. A variable one side lacks
   (new in one version) cannot be set back and is left out.
2. `lever`: the new version's own knobs first (levers.py `version_levers`: MariaDB 11's cost
   variables the baseline lacks, at what the 10.x cost model assumed), then the flavor's documented
   known levers (levers.py), relative to the variant's own values; one that repeats a `differs`
   candidate's setting is left out (the earlier keeps the evidence). A variable the variant's own
   `--verbose --help` calls unused (MariaDB 11's optimizer_adjust_secondary_key_costs: "Unused") is
   never a candidate, whatever its source (`build`'s `unused`).
3. `statistics`: histograms on the columns the statement filters on (histograms.py), scope "global"
   (a maintenance step on the variant's tables); listed "not measured" (it needs a second instance).

Every candidate of sources 0-2 is statement-level: its settings are written into the statement
(rewrite.py), so its scope is "statement" and it needs no side-effect check on the rest of the
replay. A setting's global twin (effects.py, scope "global": an option line or SET GLOBAL) does, and
gets it (search.py, whole.py).
"""

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from upgradelab.fixsearch.levers import levers, version_levers
from upgradelab.fixsearch.rewrite import index_text, join_order_text, remedy_text
from upgradelab.measurement import PlanStep

Source = Literal["plan", "differs", "lever", "view", "index", "statistics"]
# evidence order: plan hints first; the schema changes measured on a second instance of the variant
# (a view rewritten, views.py; an index, indexes.py; statistics, histograms.py) last
SOURCES: tuple[Source, ...] = ("plan", "differs", "lever", "view", "index", "statistics")
# Optimizer variables compared besides every `optimizer_*` one (the optimizer_trace* ones excepted:
# they change what is recorded, not the plan).
OPTIMIZER_VARIABLES = frozenset(
    {
        "eq_range_index_dive_limit",
        "range_optimizer_max_mem_size",
        "join_cache_level",
        "max_seeks_for_key",
        "in_predicate_conversion_threshold",
        "use_stat_tables",
        "histogram_size",
        "histogram_type",
        "internal_tmp_mem_storage_engine",
    }
)


@dataclass
class Candidate:
    """A remedy to try: `name` as shown, `source` (plan, differs, lever) and `note` (where it came
    from, in words), `settings` (variable -> value, an optimizer_switch value naming only the flags
    it changes) in force for the statement only (`scope` "statement") or for the whole server
    ("global", effects.py), and `apply` (the hint or the SET STATEMENT prefix to write into the
    statement; a global one's option lines)."""

    name: str
    source: Source
    note: str
    settings: dict[str, str]
    apply: str
    scope: str = "statement"
    baseline: str | None = None
    variant: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    indexes: dict[str, str] = field(default_factory=dict)  # table -> index: a plan candidate's hint
    join_order: list[str] = field(default_factory=list)  # tables in the baseline's order: a plan candidate's
    subquery_hint: str = ""  # MySQL: a hint for each IN / EXISTS subquery's block (strategies.py)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def switch_flags(value: str | None) -> dict[str, str]:
    """optimizer_switch's 'a=on,b=off' as {a: on, b: off}; {} for None."""
    flags = {}
    for part in (value or "").split(","):
        name, _, state = part.strip().partition("=")
        if name and state:
            flags[name] = state
    return flags


def is_optimizer_variable(name: str) -> bool:
    """Whether `name` is compared (module docstring)."""
    if name == "optimizer_switch" or name.startswith("optimizer_trace"):
        return False
    return name.startswith("optimizer_") or name in OPTIMIZER_VARIABLES


def _candidate(name: str, source: Source, note: str, settings: dict[str, str], flavor: str,
               baseline: str | None = None, variant: str | None = None) -> Candidate:  # fmt: skip
    return Candidate(name, source, note, settings, remedy_text(flavor, settings), baseline=baseline,
                     variant=variant)  # fmt: skip


def build(
    flavor: str, baseline: dict[str, str], variant: dict[str, str], unused: frozenset[str] = frozenset()
) -> list[Candidate]:
    """Candidates in the order tried (module docstring) from both servers' variables
    ({name: value}, lower-case names); `unused`: the variables the variant's binary says it no longer
    uses (targets/option_names.py unused_variables), never a candidate."""
    out = [c for c in _build(flavor, baseline, variant) if not set(c.settings) & unused]
    return out


def _build(flavor: str, baseline: dict[str, str], variant: dict[str, str]) -> list[Candidate]:
    out: list[Candidate] = []
    base_flags = switch_flags(baseline.get("optimizer_switch"))
    var_flags = switch_flags(variant.get("optimizer_switch"))
    differing = {
        f: base_flags[f] for f in sorted(base_flags) if f in var_flags and var_flags[f] != base_flags[f]
    }
    for flag, value in differing.items():
        out.append(_candidate(
            f"optimizer_switch {flag}={value}", "differs",
            f"{flag} is {value} on the baseline, {var_flags[flag]} on the variant",
            {"optimizer_switch": f"{flag}={value}"}, flavor, value, var_flags[flag],
        ))  # fmt: skip
    if len(differing) > 1:
        together = ",".join(f"{f}={v}" for f, v in differing.items())
        out.append(_candidate(
            f"optimizer_switch {together}", "differs",
            f"the {len(differing)} optimizer_switch flags that differ, all set back to the baseline's",
            {"optimizer_switch": together}, flavor,
        ))  # fmt: skip
    for name in sorted(n for n in baseline if is_optimizer_variable(n)):
        if name in variant and variant[name] != baseline[name]:
            out.append(_candidate(
                f"{name}={baseline[name]}", "differs",
                f"{name} is {baseline[name]!r} on the baseline, {variant[name]!r} on the variant",
                {name: baseline[name]}, flavor, baseline[name], variant[name],
            ))  # fmt: skip
    seen = {tuple(sorted(c.settings.items())) for c in out}
    for name, value, note in version_levers(flavor, baseline, variant):
        said = f"the new version's own knob: {note}"
        own = variant.get(name)
        out.append(_candidate(f"{name}={value}", "lever", said, {name: value}, flavor, None, own))
        seen.add(((name, value),))
    for lever in levers(flavor):
        if lever.flag is not None:
            current = var_flags.get(lever.flag)
            value = "off" if current == "on" else "on"
            settings = {"optimizer_switch": f"{lever.flag}={value}"}
            name, before = f"optimizer_switch {lever.flag}={value}", current
        else:
            assert lever.variable is not None and lever.value is not None
            before = variant.get(lever.variable)
            if before == lever.value:
                continue  # the variant has the lever's value already
            settings = {lever.variable: lever.value}
            name = (
                f"{lever.variable}={lever.value!r}"
                if lever.value == ""
                else f"{lever.variable}={lever.value}"
            )
        if tuple(sorted(settings.items())) in seen:
            continue
        seen.add(tuple(sorted(settings.items())))
        out.append(_candidate(name, "lever", f"known lever: {lever.note}", settings, flavor, None, before))
    return out


def _keys(plan: list[PlanStep]) -> dict[str, str | None]:
    return {step.table: step.key for step in plan if not step.table.startswith("<")}


def join_order_candidate(flavor: str, baseline: list[PlanStep], variant: list[PlanStep]) -> Candidate | None:
    """The baseline's join order as a hint when the variant joins the same tables in another order
    (module docstring, 0); None otherwise. A table twice in a plan (a self-join under one name) gives
    no order to write: None."""
    before, after = (list(_keys(plan)) for plan in (baseline, variant))
    named = [s.table for s in baseline if not s.table.startswith("<")]
    if len(before) < 2 or len(named) != len(before) or sorted(before) != sorted(after) or before == after:
        return None
    said = f"the baseline joins {', '.join(before)}; the variant {', '.join(after)}"
    return Candidate(f"the baseline's join order {', '.join(before)}", "plan", said, {},
                     join_order_text(flavor, before), join_order=before,
                     extra={"join_order": before})  # fmt: skip


def plan_candidates(flavor: str, baseline: list[PlanStep], variant: list[PlanStep]) -> list[Candidate]:
    """The baseline's indexes as a hint where the variant's plan uses another, then its join order
    where the variant joins in another (module docstring, 0)."""
    out: list[Candidate] = []
    before, after = _keys(baseline), _keys(variant)
    indexes = {t: k for t, k in before.items() if k is not None and t in after and after[t] != k}
    if indexes:
        said = ", ".join(
            f"{t}: {k} on the baseline, {after[t] or 'none'} on the variant" for t, k in indexes.items()
        )
        shown = ", ".join(f"{t}.{k}" for t, k in indexes.items())
        out.append(Candidate(f"the baseline's index {shown}", "plan", said, {}, index_text(flavor, indexes),
                             indexes=indexes))  # fmt: skip
    order = join_order_candidate(flavor, baseline, variant)
    if order is not None:
        out.append(order)
    return out
