"""The fix search's oracle on real servers: the replay's machinery (measurement/opening.py, passes.py,
turns.py, timing.py) on two instances opened once for the whole search (sides.py), the baseline and
the variant as the replay ran them, the replay's dataset loaded (or reused from a kept datadir).

Per candidate, three arms (wrappers.py `arm_roles`) take turns in every round, pass by pass as a
replay's variants do (turns.py `round_turns`, each round's order a shuffle of random.Random(seed)):
the fingerprint's sampled statements on the baseline, the same on the variant as it is, and the
statements rewritten with the candidate's remedy (rewrite.py) on the variant. Each statement is
repeated until enough time was measured (timing.py), by the server's clock where both sides give it.
An arm's outcomes are captured once (the candidate's before its rounds: an error or a new warning is
the server refusing the remedy, `refusal`; its results are compared with the baseline's by
compare.diff); the baseline's and the variant's are captured at the start and kept for every
candidate, whose rounds time all three afresh (a candidate's ratios rest on its own rounds only).
Like with like (wrappers.py): a statement-level setting's baseline and variant arms are its
statements under a no-op wrapper of the same variables at each side's own values, captured per
candidate, and a fourth arm, the variant bare, measures the wrapper's own cost; each arm's work
counters are tallied (measurement/counters.py), so a setting that does not restore but gives the
baseline's plans, results and work is said so (identity.py `plan_identity`, search.py sends it to
the global check).

A schema change (a view rewritten, an index, the statistics: `ON_SECOND`) runs its arm on the
variant's second instance with the change applied there (second.py); its trial carries what to
apply and how to undo it, and an index's size read there (catalog.py `index_size`).

A global remedy (scope "global", effects.py) is measured as the session value it gives every new
connection: SET GLOBAL and an option line set the default each session starts with, and the settings
it names (optimizer_switch flags, optimizer variables) are session variables the optimizer reads from
the statement's own session. So its arm runs the statements unchanged on the variant's replay
connection with SET SESSION of its settings for the arm's turns only, the connection's own values
(the variant's, read before) set back after each turn: the server is left as the replay made it for
the other arms. `side_effects` times every other fingerprint of the replay the same way, two arms
(the variant as it is, with the setting) interleaved round by round (effects.py).

Plans: the variant's plan of each statement with the remedy (`_plans_after`; the trial shows the
first's, before and after); a MariaDB statement-level remedy is explained as SET STATEMENT makes it
run, under its settings for the session (EXPLAIN of a `SET STATEMENT ... FOR` statement is refused).

One concept: the arms of one search on its two open instances; the statement, global and plan
readings are the same turns on the same connections, apart only in what the arm sets.
"""

import random
from contextlib import closing, suppress
from dataclasses import asdict, dataclass, field, replace
from itertools import groupby
from typing import Any, Protocol

import pymysql

from upgradelab.fixsearch.candidates import Candidate
from upgradelab.fixsearch.catalog import index_size
from upgradelab.fixsearch.histograms import NOT_MEASURED, Refused, Unavailable
from upgradelab.fixsearch.identity import plan_identity
from upgradelab.fixsearch.rewrite import RewriteError, apply_remedy, index_hint, rewrite
from upgradelab.fixsearch.search import SearchCancelled, Trial
from upgradelab.fixsearch.sides import Side
from upgradelab.fixsearch.views import inline
from upgradelab.fixsearch.wrappers import Wrapper, arm_roles, judge_arms, wrapper_for
from upgradelab.measurement import (
    THRESHOLD,
    DumpDataset,
    Interrupt,
    OpenVariant,
    Outcome,
    PlanStep,
    SourceStatement,
    StatementRunner,
    VariantReplay,
    WorkTally,
    capture_outcomes,
    diff,
    explain,
    pair_clock,
    pass_values,
    round_turns,
    server_turn,
    statement_passes,
)
from upgradelab.targets.statement_timeout import StatementInterrupted


class SecondSide(Protocol):
    """Where a statistics candidate's arm runs (second.py SecondInstance: the variant's second instance)."""

    side: "Side | None"

    def with_change(self, name: str, apply: list[str], undo: list[str], database: str) -> Side:
        """The instance with the candidate's change applied; histograms.Unavailable, Refused."""
        ...


# the candidate sources measured on the variant's second instance (second.py): schema changes
ON_SECOND = ("view", "index", "statistics")


def not_measured(candidate: Candidate) -> str:
    """Why a schema change has no arm without a second instance of the variant."""
    if candidate.source == "statistics":
        return NOT_MEASURED
    return (
        "not measured: needs a second instance of the variant (a schema change on the search's variant "
        "instance would change the variant-as-is arm too)"
    )


@dataclass
class Arm:
    """Statements timed on one side: its own VariantReplay (outcomes, times) and runner."""

    side: Side
    one: OpenVariant
    runner: StatementRunner
    statements: list[SourceStatement]
    session: dict[str, str] = field(default_factory=dict)  # a global remedy's, for its turns only

    @property
    def replay(self) -> VariantReplay:
        return self.one.replay


def new_arm(side: Side, name: str, statements: list[SourceStatement], passes: int,
         session: dict[str, str] | None = None) -> Arm:  # fmt: skip
    replay = VariantReplay(name, side.one.replay.version, None, [], passes=passes, flavor=side.flavor)
    replay.clock = "server" if side.one.clock is not None else "client"
    return Arm(
        side,
        replace(side.one, replay=replay, missing={}),
        StatementRunner(side.runner.statements),
        statements,
        dict(session or {}),
    )


def _fresh(arm: Arm) -> Arm:
    """The arm with its captured outcomes and no times nor work (a candidate's own rounds)."""
    fresh = new_arm(arm.side, arm.replay.name, arm.statements, arm.replay.passes, arm.session)
    fresh.replay.outcomes = list(arm.replay.outcomes)
    fresh.replay.times = [[] for _ in arm.statements]
    fresh.replay.work = [WorkTally() for _ in arm.statements]
    fresh.runner.untimed = set(arm.runner.untimed)
    return fresh


def refusal(original: Outcome, remedied: Outcome) -> str | None:
    """Why the server refused a remedy, or None: the rewritten statement errs where the original
    ran, or carries a warning code the original did not (MySQL warns of a hint it ignores: an
    unknown variable, one SET_VAR cannot set, a hint's syntax)."""
    if remedied.kind in ("error", "refused") and original.kind == "ran":
        return f"{remedied.error_code}: {remedied.error_message}"
    known = {code for _, code, _ in original.warnings}
    new = [(code, text) for _, code, text in remedied.warnings if code not in known]
    if new:
        return "; ".join(f"warning {code}: {text}" for code, text in new)
    return None


def results_equal(base: list[Outcome], other: list[Outcome], statements: list[SourceStatement]) -> bool:
    """Every statement's results equal the baseline's (compare.diff: error, row count, unordered
    checksum, a timeout; an order change only where the statement has no ORDER BY)."""
    for b, o, statement in zip(base, other, statements, strict=True):
        found = diff(b, o, statement, "candidate")
        if found.error or found.result or found.timed_out or found.refused:
            return False
        if found.ordering_only and not found.unordered_query:
            return False
    return True


@dataclass
class PairOracle:
    """search.Oracle on the two sides (module docstring). `seed`: the rounds' order stream."""

    baseline: Side
    variant: Side
    dataset: DumpDataset
    statements: list[SourceStatement]
    passes: int
    seed: int
    interrupt: Interrupt
    tolerance: float = THRESHOLD
    looks: int = 1  # how many times a candidate may be judged (search.py `search_looks`)
    # the replay's other fingerprints (id, text, sampled statements) and the side-effect check's budget
    others: list[tuple[str, str, list[SourceStatement]]] = field(default_factory=list)
    side_rounds: int = 5
    side_minutes: float = 10.0
    # the statistics candidate's arm (second.py; None: no second instance, "not measured") and what
    # the trial says of it (the instance difference, the replay's A/A interval)
    second: "SecondSide | None" = None
    second_note: str = ""
    writes: int = 0  # the replay's write statements (an index's cost on them is not measured)
    _start: tuple[Arm, Arm] | None = None
    _arms: dict[str, list[Arm]] = field(default_factory=dict)
    _wrappers: dict[str, Wrapper | None] = field(default_factory=dict)
    _shuffle: random.Random | None = None

    def capture_arm(self, arm: Arm) -> None:
        """The arm's outcomes captured once, then one untimed pass (on its server, under its session)."""
        with server_turn(arm.side, arm.session):
            capture_outcomes(arm.one, arm.runner, self.dataset, arm.statements)
            for index in range(len(arm.statements)):  # one untimed pass: caches as the rounds find them
                statement_passes(arm.one, arm.runner, self.dataset, arm.statements, index, 1, warm_up=True)

    def start(self) -> tuple[Arm, Arm]:
        """The baseline's and the variant's outcomes, captured once."""
        if self._start is None:
            base = new_arm(self.baseline, "baseline", self.statements, self.passes)
            var = new_arm(self.variant, "variant", self.statements, self.passes)
            self.capture_arm(base)
            self.capture_arm(var)
            self._start = (base, var)
        return self._start

    def __call__(self, candidate: Candidate, rounds: int) -> Trial:
        """Measure `candidate` `rounds` more rounds (search.Oracle); SearchCancelled once interrupted."""
        try:
            return self._measure(candidate, rounds)
        except StatementInterrupted as stopped:
            raise SearchCancelled() from stopped

    def _measure(self, candidate: Candidate, rounds: int) -> Trial:
        if self.interrupt.is_set:
            raise SearchCancelled()
        if candidate.extra.get("refused"):  # a view whose body cannot carry the baseline's plan
            return Trial(candidate.name, "refused", candidate.note)
        if candidate.source in ON_SECOND and self.second is None:
            return Trial(candidate.name, "not measured", not_measured(candidate))
        base, var = self.start()
        arms = self._arms.get(candidate.name)
        if arms is None:
            made = self._remedied(candidate)
            if isinstance(made, Trial):
                return made
            remedied = made
            sqls = [s.sql for s in remedied.statements]
            for original, outcome in zip(var.replay.outcomes, remedied.replay.outcomes, strict=True):
                refused = refusal(original, outcome)
                if refused:
                    return Trial(
                        candidate.name, "refused", f"the server refused it: {refused}", statements=sqls
                    )
            wrapper = wrapper_for(candidate, self.own(self.baseline), self.own(self.variant))
            wrapped = self._wrapped(wrapper) if wrapper is not None else None
            if wrapped is not None:
                arms = [*wrapped, remedied, _fresh(var)]
            else:
                arms = [_fresh(base), _fresh(var), remedied]
            self._arms[candidate.name] = arms
            self._wrappers[candidate.name] = wrapper if wrapped is not None else None
        self.run_rounds(arms, rounds)
        wrapper = self._wrappers.get(candidate.name)
        on_base, on_cand = arms[0], arms[2]
        clock = pair_clock(on_base.replay.clock, on_cand.replay.clock)
        indexes = list(range(len(self.statements)))
        done = len(on_cand.replay.times[0]) // self.passes if on_cand.replay.times else 0
        equal = results_equal(base.replay.outcomes, on_cand.replay.outcomes, self.statements)
        trial = judge_arms(candidate.name, arm_roles(wrapper is not None),
                           [pass_values(a.replay, indexes, clock) for a in arms], equal, done,
                           self.tolerance, self.looks, len(self.statements))  # fmt: skip
        trial.statements, trial.clock = [s.sql for s in on_cand.statements], clock
        if wrapper is not None:
            trial.wrapper = {**wrapper.texts(self.variant.flavor), "note": wrapper.note}
        if candidate.source in ON_SECOND:
            trial.reason = f"{trial.reason}; {self.second_note}"
            trial.change = self._change(candidate)
        after = self._plans_after(candidate, on_cand)
        before = var.replay.outcomes[0].plan if var.replay.outcomes else []
        trial.plan_before = [asdict(step) for step in before]
        trial.plan_after = [asdict(step) for step in after[0][0]] if after else []
        trial.plan_error = after[0][1] if after else None
        if candidate.scope == "statement" and candidate.settings and trial.status != "restores":
            said, _ = plan_identity([o.plan for o in base.replay.outcomes], [steps for steps, _ in after],
                                    equal, on_base.replay.work, on_cand.replay.work,
                                    [o.plan for o in var.replay.outcomes])  # fmt: skip
            trial.plan_identity = said
        return trial

    def own(self, side: Side) -> dict[str, str]:
        """The side's replay connection's own variables (SHOW SESSION VARIABLES), read once."""
        if side.own is None:
            with server_turn(side):
                side.own = side.variables()
        return side.own

    def _wrapped(self, wrapper: Wrapper) -> tuple[Arm, Arm] | None:
        """The baseline's and the variant's statements under the no-op wrapper (wrappers.py), captured;
        None when a side cannot carry it (a rewrite refused, or the server refused it: then the arms
        stay bare, as the trial's missing `wrapper` says)."""
        out = []
        for side, settings, bare in ((self.baseline, wrapper.baseline, self.start()[0]),
                                     (self.variant, wrapper.variant, self.start()[1])):  # fmt: skip
            try:
                statements = [replace(s, sql=rewrite(s.sql, side.flavor, settings)) for s in self.statements]
            except RewriteError:
                return None
            arm = new_arm(side, bare.replay.name, statements, self.passes)
            self.capture_arm(arm)
            if any(refusal(b, o) for b, o in zip(bare.replay.outcomes, arm.replay.outcomes, strict=True)):
                return None
            out.append(arm)
        return out[0], out[1]

    def _remedied(self, candidate: Candidate) -> "Arm | Trial":
        """The candidate's arm, its outcomes captured: the statements rewritten (statement-level) or
        run under its settings (global); a refused Trial when the statement cannot carry it or the
        server refuses the setting."""
        if candidate.source in ON_SECOND:
            try:
                side = self.second_side(candidate)
            except Unavailable as why:
                return Trial(candidate.name, "not measured", f"{not_measured(candidate)}: {why}")
            except Refused as refused:
                return Trial(candidate.name, "refused", f"the server refused it: {refused}")
            except SearchCancelled:
                raise
            except Exception as failure:  # its start failed: the other candidates are still measured
                failed = f"{type(failure).__name__}: {failure}"
                said = f"{not_measured(candidate)}: the second instance failed: {failed}"
                return Trial(candidate.name, "not measured", said)
            arm = new_arm(side, candidate.name, self.statements, self.passes)
        elif candidate.scope == "global":
            arm = new_arm(self.variant, candidate.name, self.statements, self.passes, candidate.settings)
        else:
            try:
                rewritten = [replace(s, sql=self._rewritten(candidate, s.sql)) for s in self.statements]
            except RewriteError as error:
                return Trial(candidate.name, "refused", f"the statement cannot carry it: {error}")
            arm = new_arm(self.variant, candidate.name, rewritten, self.passes)
        try:
            self.capture_arm(arm)
        except pymysql.MySQLError as error:  # SET SESSION of a global remedy's setting
            said = f"{error.args[0]}: {error.args[1]}" if len(error.args) > 1 else str(error)
            return Trial(candidate.name, "refused", f"the server refused it: {said}")
        return arm

    def _rewritten(self, candidate: Candidate, sql: str) -> str:
        """`sql` with a statement-level candidate's remedy (rewrite.py; a view's body inlined, views.py);
        RewriteError when it cannot carry it."""
        inlined = candidate.extra.get("inline")
        if inlined:
            sql = inline(sql, str(inlined["view"]), str(inlined["body"]))
        flavor = self.variant.flavor
        settings, indexes, order, hint = (
            candidate.settings,
            candidate.indexes,
            candidate.join_order,
            candidate.subquery_hint,
        )
        return (
            apply_remedy(sql, flavor, settings, indexes, order, hint)
            if (settings or indexes or order or hint)
            else sql
        )

    def _change(self, candidate: Candidate) -> dict[str, Any]:
        """A schema change's apply and undo, an index's size on the second instance (catalog.py), and
        the replay's write statements its cost was not measured on (module docstring)."""
        apply = candidate.extra.get("statements") or candidate.extra.get("analyze", [])
        out: dict[str, Any] = {"apply": list(apply), "undo": list(candidate.extra.get("undo", []))}
        index = candidate.extra.get("index")
        if index and self.second is not None and self.second.side is not None:
            side = self.second.side
            database = self.statements[0].database or self.dataset.database
            with server_turn(side), closing(side.one.variant.provisioner.endpoint.connect(database)) as admin:
                out["size_bytes"] = index_size(admin, database, str(index["table"]), str(index["name"]))
        if index and self.writes:
            out["writes"] = (
                f"the workload's {self.writes} write statements were not timed with it (the search's "
                "connections are read-only): the index's cost on them is not measured"
            )
        return out

    def second_side(self, candidate: Candidate) -> Side:
        """The second instance with the candidate's change applied (second.py), in the statement's
        database; Unavailable, Refused."""
        if self.second is None:
            raise Unavailable("no second instance")
        database = self.statements[0].database or self.dataset.database
        apply = candidate.extra.get("statements") or candidate.extra["analyze"]
        return self.second.with_change(
            candidate.name, list(apply), list(candidate.extra.get("undo", [])), database
        )

    def _plans_after(self, candidate: Candidate, remedied: Arm) -> list[tuple[list[PlanStep], str | None]]:
        """Each statement's plan on the variant with the remedy, and EXPLAIN's error (module
        docstring: MariaDB's SET STATEMENT explained under its settings for the session)."""
        out = [(o.plan, o.plan_error) for o in remedied.replay.outcomes]
        if self.variant.flavor == "mariadb" and candidate.scope == "statement" and candidate.settings:
            with server_turn(self.variant, candidate.settings):
                for index, statement in enumerate(self.statements):
                    with suppress(RewriteError):
                        sql = statement.sql
                        sql = index_hint(sql, "mariadb", candidate.indexes) if candidate.indexes else sql
                        steps, _, error = explain(remedied.runner.statements, sql)
                        out[index] = (steps, error)
        return out

    def run_rounds(self, arms: list[Arm], rounds: int) -> None:
        """`rounds` rounds of the arms, pass by pass (module docstring)."""
        if self._shuffle is None:
            self._shuffle = random.Random(self.seed)
        for _ in range(rounds):
            order = list(range(len(arms)))
            self._shuffle.shuffle(order)
            turns = round_turns(order, len(arms[0].statements), self.passes, "pass")
            for index, block in groupby(turns, key=lambda turn: turn[0]):
                arm = arms[index]
                with server_turn(arm.side, arm.session):
                    for _, statement, count in block:
                        statement_passes(arm.one, arm.runner, self.dataset, arm.statements, statement, count)
