"""`upgradelab fix`'s text summary of a search with a global remedy: each trial with its scope and both
ratios, the side effects listed under the global one with their ratio and interval, what to apply for
the remedy and the global remedy, and the plans before and after."""

from typing import Any

from upgradelab.cli.fix import summary


def _ratio(value: float, verdict: str) -> dict[str, Any]:
    return {"ratio": value, "low": value * 0.9, "high": value * 1.1, "verdict": verdict}


def test_the_summary_lists_side_effects_and_what_to_apply() -> None:
    plan = [{"table": "o", "access_type": "ALL", "key": None}]
    said = "1 side effects on the 2 other fingerprints of the replay (5 rounds each): f2"
    found = {
        "id": 4,
        "status": "succeeded",
        "candidates": [{"name": "sj", "apply": "/*+ SET_VAR(optimizer_switch='semijoin=on') */"}],
        "tried": [
            {"name": "sj", "status": "restores", "scope": "statement", "results_equal": True,
             "ratio_to_baseline": _ratio(1.0, "no significant difference"),
             "ratio_to_variant": _ratio(0.05, "improvement"), "plan_before": plan,
             "plan_after": [{"table": "i", "access_type": "ref", "key": "c"}]},
            {"name": "sj (global)", "status": "restores", "scope": "global", "results_equal": True,
             "reason": "-", "apply": "optimizer_switch='semijoin=on'",
             "ratio_to_baseline": _ratio(1.0, "no significant difference"),
             "side_effects": {"said": said,
                              "side_effects": [{"fingerprint_id": "f2", "results_equal": True,
                                                "ratio": _ratio(3.0, "regression")}]}},
        ],
        "result": {"outcome": "restored", "remedy": "sj", "global_remedy": "sj (global)", "rounds": 20,
                   "minutes": 0.5, "not_tried": []},
    }  # fmt: skip
    text = summary(found).splitlines()
    assert text[0] == "fix search 4: succeeded, restored"
    assert text[1].startswith("  sj [statement]: restores; vs baseline 1.00x [0.90, 1.10]")
    assert "vs variant 0.05x [0.05, 0.06] (improvement)" in text[1]
    assert "    1 side effects on the 2 other fingerprints of the replay (5 rounds each): f2" in text
    assert "      f2: 3.00x [2.70, 3.30] (regression)" in text
    assert "  remedy: sj; apply: /*+ SET_VAR(optimizer_switch='semijoin=on') */" in text
    assert "    plan before: o:ALL/-" in text and "    plan after:  i:ref/c" in text
    assert "  global remedy: sj (global); apply: optimizer_switch='semijoin=on'" in text


def test_the_summary_says_the_wrapper_plan_identity_an_index_and_what_more_a_budget_needed() -> None:
    identity = "with it the variant's plan of its statement is the baseline's"
    writes = "the workload's 2 write statements were not timed with it"
    more = "out of budget after 20 rounds and 0.5 min: 1 candidate not tried; about 5 more rounds"
    change = {
        "apply": ["CREATE INDEX ..."],
        "undo": ["DROP INDEX `i` ON `t`"],
        "size_bytes": 16384,
        "writes": writes,
    }
    found = {
        "id": 5,
        "status": "succeeded",
        "candidates": [],
        "tried": [
            {"name": "dm", "status": "undecided", "scope": "statement", "results_equal": True, "reason": "-",
             "ratio_to_baseline": _ratio(1.0, "inconclusive"), "wrapper_cost": _ratio(1.14, "regression"),
             "wrapper_us": 12.8, "plan_identity": identity},
            {"name": "index i on t (x)", "status": "restores", "scope": "global", "results_equal": True,
             "change": change},
        ],
        "result": {"outcome": "out of budget", "remedy": None, "rounds": 20, "minutes": 1, "not_tried": ["a"],
                   "said": more, "unused": ["optimizer_adjust_secondary_key_costs"]},
    }  # fmt: skip
    text = summary(found).splitlines()
    assert (
        "    the wrapper's own cost (in every arm): 1.14x [1.03, 1.25] (regression), +12.8 us per statement"
        in text
    )
    assert f"    plan identity: {identity}" in text
    assert "    the index: 16,384 bytes; undo: DROP INDEX `i` ON `t`" in text
    assert f"    {writes}" in text and f"  {more}" in text
    assert (
        "  never candidates (the variant's own help calls them unused): optimizer_adjust_secondary_key_costs"
        in text
    )
