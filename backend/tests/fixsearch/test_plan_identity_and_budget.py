"""Issue 46, Deliver 4, 7 and 8 apart from a server: a setting whose statement-level arm does not
restore but gives the baseline's plans, results and work is measured as a global remedy, saying why;
the evidence itself (identity.py); a variable the binary's own help calls unused is never a candidate,
and MariaDB 11's cost knobs are levers; a budget that lists a candidate tries it (extensions never
take a first look's rounds; the default scales with the candidates) and "out of budget" says what
more it needed."""

from upgradelab.fixsearch.candidates import Candidate, build
from upgradelab.fixsearch.effects import SideEffects, global_twin
from upgradelab.fixsearch.identity import plan_identity
from upgradelab.fixsearch.search import Budget, Trial, scaled_budget, search
from upgradelab.measurement.counters import WorkTally
from upgradelab.measurement.outcomes import PlanStep
from upgradelab.targets.option_names import unused_variables

SETTING = Candidate(
    "optimizer_switch derived_merge=on", "differs", "-", {"optimizer_switch": "derived_merge=on"}, "-"
)
OTHER = Candidate("optimizer_prune_level=1", "lever", "-", {"optimizer_prune_level": "1"}, "-")
SAID = "with it the variant's plan of its statement is the baseline's (t:ref/g), its results and work equal"


class Scripted:
    """Each candidate's trials in turn: (status, plan identity sentence or None), `rounds` each."""

    def __init__(self, script: dict[str, list[tuple[str, str | None]]]) -> None:
        self.script, self.calls = script, []  # type: ignore[var-annotated]

    def __call__(self, candidate: Candidate, rounds: int) -> Trial:
        self.calls.append((candidate.name, rounds))
        status, identity = self.script[candidate.name].pop(0)
        done = sum(r for n, r in self.calls if n == candidate.name)
        trial = Trial(candidate.name, status, f"{status} (scripted)", rounds=done)  # type: ignore[arg-type]
        trial.plan_identity = identity
        return trial


def _checked(candidate: Candidate) -> SideEffects:
    return SideEffects([], [], 5)


def test_a_plan_identical_setting_that_does_not_restore_is_measured_as_a_global_remedy() -> None:
    script: dict[str, list[tuple[str, str | None]]] = {
        SETTING.name: [("does not restore", SAID)],
        f"{SETTING.name} (global)": [("restores", None)],
        OTHER.name: [("restores", None)],
    }
    budget = Budget(100, 60)
    outcome = search(
        [SETTING, OTHER], Scripted(script), rounds=5, budget=budget, globalize=global_twin, check=_checked
    )
    assert [t.name for t in outcome.trials] == [SETTING.name, f"{SETTING.name} (global)"]
    twin = outcome.trials[1]
    assert twin.scope == "global" and twin.status == "restores"
    assert twin.reason.startswith(f"measured as a global remedy: {SAID}")
    assert outcome.outcome == "restored" and outcome.remedy == twin.name == outcome.global_remedy
    # a setting that restores stops the search, whatever its global twin says (undecided here)
    script = {SETTING.name: [("restores", None)], f"{SETTING.name} (global)": [("undecided", None)] * 3,
              OTHER.name: [("restores", None)]}  # fmt: skip
    stopped = search([SETTING, OTHER], Scripted(script), rounds=5, budget=budget, globalize=global_twin)
    assert [t.name for t in stopped.trials] == [SETTING.name, f"{SETTING.name} (global)"]
    assert stopped.outcome == "restored" and stopped.remedy == SETTING.name
    # without the evidence, a setting that does not restore gets no global twin
    plain = Scripted({SETTING.name: [("does not restore", None)], OTHER.name: [("does not restore", None)]})
    ended = search(
        [SETTING, OTHER], plain, rounds=5, budget=Budget(100, 60), globalize=global_twin, check=_checked
    )
    assert [t.name for t in ended.trials] == [SETTING.name, OTHER.name]


def _tally(rows: float) -> WorkTally:
    tally = WorkTally()
    tally.add({"rows_examined": rows, "created_tmp_tables": 0.0})
    return tally


def test_plan_identity_needs_every_plan_the_results_and_the_work() -> None:
    base = [[PlanStep("t", "ref", "g", 20.0)]]
    same = [[PlanStep("t", "ref", "g", 18.0)]]  # another rows estimate: the same plan
    said, _ = plan_identity(base, same, True, [_tally(20)], [_tally(20)])
    assert said is not None and "t:ref/g" in said
    assert plan_identity(base, same, False, [_tally(20)], [_tally(20)])[0] is None
    derived = [[PlanStep("<derived2>", "ALL", None, 20.0), PlanStep("t", "ref", "g", 20.0)]]
    none, why = plan_identity(base, derived, True, [_tally(20)], [_tally(20)])
    assert none is None and "is not the baseline's" in why
    none, why = plan_identity(base, same, True, [_tally(20)], [_tally(2000)])
    assert none is None and "rows examined moved" in why
    none, why = plan_identity(base, same, True, [WorkTally()], [WorkTally()])
    assert none is None and "client's clock" in why
    # the variant ran the baseline's plan already: a setting that leaves it so is no evidence
    none, why = plan_identity(base, same, True, [_tally(20)], [_tally(20)], variant_plans=same)
    assert none is None and "no plan change" in why
    assert plan_identity(base, same, True, [_tally(20)], [_tally(20)], variant_plans=derived)[0] is not None


def test_an_extension_never_takes_the_rounds_a_listed_candidate_needs_for_its_first_look() -> None:
    names = [Candidate(f"c{n}", "lever", "-", {f"v{n}": "1"}, "-") for n in range(4)]
    oracle = Scripted({c.name: [("undecided", None)] * 3 for c in names})
    outcome = search(names, oracle, rounds=5, budget=Budget(25, 60))
    assert [t.name for t in outcome.trials] == ["c0", "c1", "c2", "c3"]  # every one looked at
    assert outcome.rounds <= 25 and outcome.outcome == "no remedy found"


def test_out_of_budget_says_how_many_rounds_and_minutes_more_would_have_tried_the_rest() -> None:
    names = [Candidate(f"c{n}", "lever", "-", {f"v{n}": "1"}, "-") for n in range(5)]
    oracle = Scripted({c.name: [("does not restore", None)] for c in names})
    ticks = iter(range(0, 10_000, 30))  # 30 s per clock reading
    outcome = search(names, oracle, rounds=5, budget=Budget(10, 60), clock=lambda: float(next(ticks)))
    assert outcome.outcome == "out of budget" and outcome.not_tried == ["c2", "c3", "c4"]
    assert outcome.more_rounds == 15 and outcome.more_minutes > 0
    assert "about 15 more rounds" in outcome.said() and "3 candidates not tried" in outcome.said()
    assert (
        search(names[:1], Scripted({"c0": [("restores", None)]}), rounds=5, budget=Budget(10, 60)).more_rounds
        == 0
    )
    assert scaled_budget(12, 5) == 360  # 12 candidates, each up to 15 rounds, and as much for twins


HELP = """mariadbd  Ver 11.8.9-MariaDB for debian-linux-gnu on x86_64
  --optimizer-adjust-secondary-key-costs=#
                      Unused. Deprecated, will be removed in a future release.
  --optimizer-disk-read-cost=#
                      Cost of reading a block of IO_SIZE (4096) from a disk (in
                      usec)
  --innodb-log-spin-wait-delay[=#]
                      Deprecated parameter with no effect. Deprecated, will be
                      removed in a future release.
  --big-tables        Old variable, which if set to 1, allows large result sets
                      by saving all temporary sets to disk. Deprecated, will be removed.
"""


def test_a_variable_the_binary_calls_unused_is_never_a_candidate_and_new_cost_knobs_are_levers() -> None:
    unused = unused_variables(HELP)
    assert unused == {"optimizer_adjust_secondary_key_costs", "innodb_log_spin_wait_delay"}
    baseline = {"optimizer_adjust_secondary_key_costs": "fix_reuse_range_for_ref", "optimizer_switch": ""}
    variant = {
        "optimizer_adjust_secondary_key_costs": "0",
        "optimizer_switch": "",
        "optimizer_key_lookup_cost": "0.435777",
        "optimizer_where_cost": "0.032000",
        "optimizer_scan_setup_cost": "10.000000",
    }
    names = [c.name for c in build("mariadb", baseline, variant)]
    assert "optimizer_adjust_secondary_key_costs=fix_reuse_range_for_ref" in names  # without the help
    kept = build("mariadb", baseline, variant, unused)
    assert not any("optimizer_adjust_secondary_key_costs" in c.name for c in kept)
    knobs = {c.name: c for c in kept if c.note.startswith("the new version's own knob")}
    assert set(knobs) == {"optimizer_scan_setup_cost=0", "optimizer_where_cost=0.087155"}
    assert knobs["optimizer_where_cost=0.087155"].variant == "0.032000"
