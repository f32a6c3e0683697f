"""Per variant against the baseline: each fingerprint's group there, false discoveries controlled
across the replay, and the summary the report opens with.

Group of a fingerprint on a variant, first match (DEA's per-query verdicts, one target at a time):
1. "breaks": a new or changed error, a result difference, or an order the query never asked for;
2. "slower (timed out)": a statement timed out on the variant and not on the baseline (decided
   without rounds: a statement that no longer finishes needs no interval);
3. "timed out": timed out on the baseline too (or only there);
4. "refused": the server refused a statement as a write on one of the two (not a finding);
5. "slower, plan changed" / "slower": a regression (after false-discovery control), with or without
   a plan change (access type, chosen index or join order, within one flavor);
   "slower: per-statement cost only": a regression without a plan change that the variant's
   per-statement cost explains (VariantFinding.per_statement_cost_only, statement_cost.py cost_only);
6. "plan changed": the plan changed, the time did not decide a change;
7. "faster, plan changed" / "faster": an improvement, with or without a plan change (a new plan
   that wins is still a plan a DBA reviews: it may lose on other data); "faster: per-statement
   cost only" as its slower twin;
8. "same": the time verdict is "no significant difference" (the whole interval within the threshold);
9. "undecided": anything else (interval too wide, too few rounds, no time).

Findings (`variant_findings`): the groups above name one thing per fingerprint and variant; a
fingerprint may have several findings there, each counted in the summary's own column: a break, its
time (slower / slower (timed out) / faster, or changed by the per-statement cost only) and a plan
change. A 5x regression in a query whose rows come in another order is "breaks" (its group, the most
severe) and "slower" (counted in `slower`, with its own cause, "1 also a break"): no finding is lost
inside another.

False discoveries: every comparison with paired rounds (fingerprint x variant) gets a p-value
(results/stats/fdr.py, the statistic of the interval verdicts.py reads); Benjamini-Hochberg adjusts
them across the whole replay, and a regression or improvement whose adjusted value exceeds FDR_Q is
read "inconclusive", with the reason saying so.
"""

import math
import statistics
from typing import get_args

import numpy as np

from upgradelab.measurement import StatementDiff
from upgradelab.replay.change_causes import direction
from upgradelab.replay.groups import GROUPS, Group
from upgradelab.replay.report import CauseKind, FindingKind, FingerprintResult, VariantFinding, VariantSummary
from upgradelab.results.stats import fdr, verdicts
from upgradelab.results.stats.verdicts import Rounds

FDR_Q = fdr.Q
FDR_TEXT = (
    "Benjamini-Hochberg across the replay's {m} time comparisons (fingerprint x variant): a slower or "
    "faster verdict stands when its adjusted p-value is at most {q:.0%}"
)
EXTENSION_TEXT = (
    "{extended} of {fingerprints} fingerprints were still undecided after the {planned} planned rounds "
    "and were timed again, {step} rounds at a time, up to {max_rounds} (the most any got: {most}); "
    "decided ones were not timed again. Each step is one more look at the same comparisons (sequential "
    "looks, each interval 95 %): false slower/faster verdicts are held by the threshold on the ratio "
    "itself and by Benjamini-Hochberg over the final p-values, and an A/A bench checks that none comes out"
)


def round_logs(baseline: Rounds, variant: Rounds) -> list[float]:
    """log(variant / baseline) of the round values, paired by round (verdicts.round_values)."""
    base, var = verdicts.round_values(baseline), verdicts.round_values(variant)
    common = [r for r in sorted(set(base) & set(var)) if base[r] > 0 and var[r] > 0]
    return [float(np.log(var[r]) - np.log(base[r])) for r in common]


def control_false_discoveries(
    reports: list[FingerprintResult], logs: dict[tuple[str, str], list[float]]
) -> int:
    """Set p_value/q_value of every finding with at least verdicts.MIN_ROUNDS paired rounds and read
    a regression/improvement whose q-value exceeds FDR_Q "inconclusive" (in place); `logs` maps
    (fingerprint_id, variant) to its per-round log ratios. Returns how many comparisons were tested."""
    tested: list[tuple[FingerprintResult, str, float]] = []
    for report in reports:
        for variant in report.ratios:
            values = logs.get((report.fingerprint_id, variant), [])
            p = fdr.paired_p_value(values) if len(values) >= verdicts.MIN_ROUNDS else None
            if p is not None:
                tested.append((report, variant, p))
    for (report, variant, p), q in zip(tested, fdr.adjusted([p for _, _, p in tested]), strict=True):
        finding = report.variants.setdefault(variant, VariantFinding(group="undecided"))
        finding.p_value, finding.q_value = p, q
        ratio = report.ratios[variant]
        if ratio.verdict in ("regression", "improvement") and q > FDR_Q:
            report.ratios[variant] = ratio.model_copy(
                update={
                    "verdict": "inconclusive",
                    "reason": f"would be a {ratio.verdict}, but not after false-discovery control "
                    f"(Benjamini-Hochberg q = {q:.3f} > {FDR_Q:.2f})",
                }
            )
    return len(tested)


# A fingerprint's findings on a variant in severity order (report.FingerprintFinding); its group
# is the first's.
FINDINGS: tuple[FindingKind, ...] = get_args(FindingKind)
SLOWER: tuple[FindingKind, ...] = ("slower", "slower (timed out)")
# The findings a group already names (the others of a fingerprint are said beside its group: "also")
GROUP_FINDINGS: dict[str, tuple[FindingKind, ...]] = {
    "breaks": ("breaks",),
    "slower, plan changed": ("slower", "plan changed"),
    "slower (timed out)": ("slower (timed out)",),
    "slower": ("slower",),
    "slower: per-statement cost only": ("slower: per-statement cost only",),
    "plan changed": ("plan changed",),
    "faster, plan changed": ("faster", "plan changed"),
    "faster": ("faster",),
    "faster: per-statement cost only": ("faster: per-statement cost only",),
}


def _timed_out(report: FingerprintResult, name: str | None) -> bool:
    """A statement of the fingerprint timed out on `name` (when captured or in a timed run)."""
    return name is not None and any(
        s.outcomes[name].kind == "timed out" or s.timed_out_runs.get(name, 0) > 0
        for s in report.statements
        if name in s.outcomes
    )


def time_finding(report: FingerprintResult, variant: str) -> FindingKind | None:
    """The fingerprint's time finding on `variant`, whatever else it has (module docstring): "slower
    (timed out)" (timed out there and not on the baseline), "slower" / "faster" on a decided verdict
    (after false-discovery control), "...: per-statement cost only" when the finding's
    per_statement_cost_only holds and its plan did not change (a plan change is a reason of its own,
    as variant_group reads it); None otherwise."""
    baseline = next(iter(report.median_s), None)
    if _timed_out(report, variant) and not _timed_out(report, baseline):
        return "slower (timed out)"
    ratio = report.ratios.get(variant)
    verdict = ratio.verdict if ratio else None
    if verdict not in ("regression", "improvement"):
        return None
    finding = report.variants.get(variant)
    plan = any(d.plan for s in report.statements for d in s.diffs if d.variant == variant)
    cost_only = finding is not None and finding.per_statement_cost_only and not plan
    if verdict == "regression":
        return "slower: per-statement cost only" if cost_only else "slower"
    return "faster: per-statement cost only" if cost_only else "faster"


def variant_findings(report: FingerprintResult, variant: str) -> list[FindingKind]:
    """Every finding of the fingerprint on `variant` in FINDINGS order: "breaks" (a statement's diff
    breaks), its time finding (time_finding), "plan changed" (a statement's plan differs)."""
    diffs = [d for s in report.statements for d in s.diffs if d.variant == variant]
    found = {time_finding(report, variant)}
    if any(d.breaks for d in diffs):
        found.add("breaks")
    if any(d.plan for d in diffs):
        found.add("plan changed")
    return [kind for kind in FINDINGS if kind in found]


def variant_group(report: FingerprintResult, variant: str) -> Group:
    """The fingerprint's group on `variant` (module docstring)."""
    diffs = [d for s in report.statements for d in s.diffs if d.variant == variant]
    baseline = next(iter(report.median_s), None)

    def timed_out(name: str) -> bool:
        return _timed_out(report, name)

    ratio = report.ratios.get(variant)
    verdict = ratio.verdict if ratio else None
    plan = any(d.plan for d in diffs)
    finding = report.variants.get(variant)
    cost_only = finding is not None and finding.per_statement_cost_only
    if any(d.breaks for d in diffs):
        return "breaks"
    if timed_out(variant) and not (baseline and timed_out(baseline)):
        return "slower (timed out)"
    if timed_out(variant) or (baseline and timed_out(baseline)):
        return "timed out"
    if any(d.refused for d in diffs) or any(
        o.kind == "refused"
        for s in report.statements
        for n, o in s.outcomes.items()
        if n in (variant, baseline)
    ):
        return "refused"
    if verdict == "regression":
        return (
            "slower, plan changed" if plan else "slower: per-statement cost only" if cost_only else "slower"
        )
    if plan and verdict != "improvement":
        return "plan changed"
    if verdict == "improvement":
        return (
            "faster, plan changed" if plan else "faster: per-statement cost only" if cost_only else "faster"
        )
    return "same" if verdict == "no significant difference" else "undecided"


def overall_group(report: FingerprintResult) -> Group:
    """The first of the variants' groups in GROUPS order; a baseline alone: "timed out" or
    "refused" when a statement was so there, else "same"."""
    groups = {finding.group for finding in report.variants.values()}
    if not report.variants:
        outcomes = [o for s in report.statements for o in s.outcomes.values()]
        if any(o.kind == "timed out" for o in outcomes) or any(
            n for s in report.statements for n in s.timed_out_runs.values()
        ):
            groups.add("timed out")
        if any(o.kind == "refused" for o in outcomes):
            groups.add("refused")
    return next((group for group in GROUPS if group in groups), "same")


def cause_counts(reports: list[FingerprintResult], variant: str, way: str) -> dict[CauseKind, int]:
    """How many fingerprints have a `way` ("slower", "faster") finding on `variant`, whatever their
    group (a regression inside a break included), by the kind of its cause (change_causes.py), most
    first. A report from before findings: its group's cause."""
    counts: dict[CauseKind, int] = {}
    for report in reports:
        finding = report.variants.get(variant)
        if finding is None:
            continue
        causes = [f.cause for f in finding.findings if direction(f.kind) == way]
        if not finding.findings and direction(finding.group) == way:
            causes = [finding.cause]
        for cause in causes:
            if cause is not None:
                counts[cause.kind] = counts.get(cause.kind, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: -item[1]))


def summary_text(summary: VariantSummary, baseline: str) -> str:
    """A variant's summary line as the CLI prints it and `--json` keeps it (VariantSummary.text):
    "mariadb-11.8 (11.8.2) vs mariadb-10.11: breaks 1 (...), slower 1 (1 also a break, plan changed
    1, timed out 0), ..."."""
    one = summary
    mde = f" (median smallest detectable change {one.undecided_median_mde:.0%})" if (
        one.undecided and one.undecided_median_mde is not None
    ) else ""  # fmt: skip
    slower_break = f"{one.slower_also_break} also a break, " if one.slower_also_break else ""
    faster_break = f"{one.faster_also_break} also a break, " if one.faster_also_break else ""
    return (
        f"{one.variant} ({one.version}) vs {baseline}: breaks {one.breaks} "
        f"(new errors {one.new_errors}, resolved {one.resolved_errors}, result changes "
        f"{one.result_changes}), slower {one.slower} ({slower_break}plan changed {one.slower_plan_changed}, "
        f"timed out {one.slower_timed_out}), faster {one.faster} ({faster_break}plan changed "
        f"{one.faster_plan_changed}), per-statement cost only {one.slower_cost_only} slower / "
        f"{one.faster_cost_only} faster, same {one.same}, undecided "
        f"{one.undecided}{mde}, plan changes {one.plan_changes}, refused writes {one.refused}, "
        f"timeouts {one.timeouts}"
    )


def summarise(
    reports: list[FingerprintResult], variant: str, version: str, baseline: str = ""
) -> VariantSummary:
    """The counts of `variant` against `baseline` (report.VariantSummary), in fingerprints: each
    finding (variant_findings) in its own column, the groups for same, undecided and refused."""
    groups = [r.variants[variant].group for r in reports if variant in r.variants]
    found = [set(variant_findings(r, variant)) for r in reports if variant in r.variants]
    diffs: list[list[StatementDiff]] = [
        [d for s in r.statements for d in s.diffs if d.variant == variant] for r in reports
    ]
    mdes = [
        r.ratios[variant].mde
        for r in reports
        if variant in r.variants and r.variants[variant].group == "undecided" and variant in r.ratios
    ]
    finite = [m for m in mdes if math.isfinite(m)]
    baseline_name = next((next(iter(r.median_s)) for r in reports if r.median_s), None)

    def count(*kinds: FindingKind, also: FindingKind | None = None) -> int:
        return sum(bool(one & set(kinds)) and (also is None or also in one) for one in found)

    summary = VariantSummary(
        variant=variant,
        version=version,
        breaks=count("breaks"),
        new_errors=sum(any(d.error_change in ("new", "changed") for d in one) for one in diffs),
        resolved_errors=sum(any(d.error_change == "resolved" for d in one) for one in diffs),
        result_changes=sum(
            any(d.result or (d.ordering_only and d.unordered_query) for d in one) for one in diffs
        ),
        slower=count(*SLOWER),
        slower_plan_changed=count("slower", also="plan changed"),
        slower_timed_out=count("slower (timed out)"),
        slower_also_break=count(*SLOWER, also="breaks"),
        faster=count("faster"),
        faster_plan_changed=count("faster", also="plan changed"),
        faster_also_break=count("faster", also="breaks"),
        slower_cost_only=count("slower: per-statement cost only"),
        faster_cost_only=count("faster: per-statement cost only"),
        same=groups.count("same"),
        undecided=groups.count("undecided"),
        undecided_median_mde=float(statistics.median(finite)) if finite else None,
        plan_changes=sum(any(d.plan for d in one) for one in diffs),
        refused=groups.count("refused"),
        timeouts=sum(
            _timed_out(r, variant) or _timed_out(r, baseline_name) for r in reports if variant in r.variants
        ),
        slower_causes=cause_counts(reports, variant, "slower"),
        faster_causes=cause_counts(reports, variant, "faster"),
    )
    summary.text = summary_text(summary, baseline or baseline_name or "the baseline")
    return summary
