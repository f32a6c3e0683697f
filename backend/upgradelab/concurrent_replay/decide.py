"""A concurrent replay decided (issue 50 item 5): its trials (report.TrialRecord, every variant one
trial a round, the rounds' orders from the stored seed) read into verdicts; the first variant is the
baseline. Pure: no server, no I/O.

Time, paired by round (results/stats/verdicts.py, as every verdict of the lab): throughput
(statements/s; transactions/s when the baseline's trials commit any) and each fingerprint's client
p95 latency, variant / baseline at measurement THRESHOLD (10 %), the interval floored by the A/A
control's against the same baseline; "slower" / "faster" / "same" / "undecided". Every comparison
with at least MIN_ROUNDS paired rounds gets its p-value (results/stats/fdr.py) and
Benjamini-Hochberg adjusts them across the replay; a slower or faster verdict whose q-value exceeds
fdr.Q is "undecided", the reason says so. A slower one names its causes where the server's counters
moved with it (`_causes`: every trial of the variant beyond every trial of the baseline, and its
median at least CAUSE_FACTOR times the baseline's): lock waits (row lock time), deadlocks, errors.
Every time verdict is on the client's clock (report.CLOCK), the one both flavors have; the server's
p95 (its digest histograms, where kept) is shown beside each p95 verdict, each side's median over its
trials, and each variant's server clock said (`server_clocks`), never mixed into a verdict.

Errors and the data at the end: breaks.py.
"""

import math
import statistics
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from upgradelab.concurrent_replay.breaks import decide_breaks, error_findings, table_findings
from upgradelab.concurrent_replay.report import (
    GROUPS,
    ConcurrentReport,
    ConcurrentVerdict,
    ErrorFinding,
    Group,
    Metric,
    TableFinding,
    TrialRecord,
    VariantGroups,
)
from upgradelab.measurement import THRESHOLD
from upgradelab.results.stats import fdr, verdicts
from upgradelab.results.stats.verdicts import Rounds

CAUSE_FACTOR = 1.5
FDR_TEXT = (
    "Benjamini-Hochberg across the replay's {times} time comparisons and, apart, its {breaks} error and "
    "table tests: a verdict stands when its adjusted p-value is at most {q:.0%}"
)


def _by_variant(trials: Sequence[TrialRecord]) -> dict[str, list[TrialRecord]]:
    out: dict[str, list[TrialRecord]] = {}
    for trial in sorted(trials, key=lambda t: (t.round, t.position)):
        out.setdefault(trial.variant, []).append(trial)
    return out


def _rounds(trials: Sequence[TrialRecord], value: Callable[[TrialRecord], float | None]) -> Rounds:
    out: dict[int, list[float]] = {}
    for trial in trials:
        number = value(trial)
        if number is not None and number > 0:
            out.setdefault(trial.round, []).append(number)
    return out


def _median(rounds: Rounds) -> float | None:
    values = [v for vs in rounds.values() for v in vs]
    return float(statistics.median(values)) if values else None


def _server_p95(trials: Sequence[TrialRecord], class_id: str) -> float | None:
    """The median over `trials` of the fingerprint's server p95 (None: no trial has one)."""
    values = [
        f.server_p95_s
        for t in trials
        for f in t.summary.latencies
        if f.class_id == class_id and f.server_p95_s is not None
    ]
    return float(statistics.median(values)) if values else None


def _server_clocks(by: dict[str, list[TrialRecord]]) -> dict[str, str]:
    """Per variant, its first trial's sentence on the server's clock (none stored: left out)."""
    out = {}
    for variant, trials in by.items():
        said = next((t.summary.server_clock for t in trials if t.summary.server_clock), None)
        if said:
            out[variant] = said
    return out


def _p95_of(class_id: str) -> Callable[[TrialRecord], float | None]:
    def value(trial: TrialRecord) -> float | None:
        return next((f.p95_s for f in trial.summary.latencies if f.class_id == class_id), None)

    return value


def _moved(base: list[float], other: list[float]) -> bool:
    if not base or not other or min(other) <= max(base):
        return False
    small = statistics.median(base)
    return statistics.median(other) >= CAUSE_FACTOR * small if small > 0 else True


def _causes(base: list[TrialRecord], other: list[TrialRecord]) -> list[str]:
    """What the server's counters say moved with a slower verdict (module docstring)."""
    found: list[str] = []
    counted: list[tuple[str, str, Callable[[TrialRecord], float | None]]] = [
        (
            "lock waits",
            "ms of row lock waits",
            lambda t: t.locks.counters.row_lock_time_ms if t.locks else None,
        ),
        ("deadlocks", "deadlocks", lambda t: t.locks.counters.deadlocks if t.locks else None),
        ("errors", "failed statements", lambda t: sum(e.count for e in t.summary.errors)),
    ]
    for name, unit, value in counted:
        on_base = [v for v in map(value, base) if v is not None]
        on_other = [v for v in map(value, other) if v is not None]
        if len(on_base) == len(base) and len(on_other) == len(other) and _moved(on_base, on_other):
            found.append(
                f"{name}: {statistics.median(on_base):,.0f} -> {statistics.median(on_other):,.0f} "
                f"{unit} per trial (median)"
            )
    return found


def _group(verdict: verdicts.VerdictRead | None) -> Group:
    if verdict is None:
        return "undecided"
    return {
        "regression": "slower",
        "improvement": "faster",
        "no significant difference": "same",
    }.get(verdict.verdict, "undecided")  # type: ignore[return-value]


def _compare(
    variant: str,
    metric: Metric,
    base: Rounds,
    other: Rounds,
    floor: Rounds | None,
    class_id: str | None = None,
    fingerprint: str | None = None,
) -> ConcurrentVerdict:
    higher = metric != "p95"
    found = verdicts.interval(base, other, paired=True)
    aa = verdicts.interval(base, floor, paired=True) if floor else None
    verdict = verdicts.read(found, THRESHOLD, higher_is_better=higher, floor=aa)
    on_base, on_other = verdicts.round_values(base), verdicts.round_values(other)
    common = [r for r in sorted(set(on_base) & set(on_other))]
    logs = [math.log(on_other[r]) - math.log(on_base[r]) for r in common]
    p = fdr.paired_p_value(logs) if len(logs) >= verdicts.MIN_ROUNDS else None
    return ConcurrentVerdict(
        variant=variant,
        metric=metric,
        class_id=class_id,
        fingerprint=fingerprint,
        baseline_median=_median(base),
        variant_median=_median(other),
        verdict=verdict,
        p_value=p,
        group=_group(verdict),
        reason=verdict.reason if verdict else "no trial of both with a value",
    )


def _time_verdicts(
    by: dict[str, list[TrialRecord]], baseline: str, aa: str | None
) -> tuple[list[ConcurrentVerdict], list[ConcurrentVerdict]]:
    base = by[baseline]
    rates: list[tuple[Metric, Callable[[TrialRecord], float | None]]] = [
        ("statements/s", lambda t: t.summary.statements_per_s)
    ]
    if any(t.summary.transactions > 0 for t in base):
        rates.append(("transactions/s", lambda t: t.summary.transactions_per_s))
    classes: dict[str, str] = {}
    for trial in base:
        for latency in trial.summary.latencies:
            classes.setdefault(latency.class_id, latency.fingerprint)
    throughput: list[ConcurrentVerdict] = []
    fingerprints: list[ConcurrentVerdict] = []
    for variant, trials in by.items():
        if variant == baseline:
            continue
        control = by.get(aa) if aa is not None and variant != aa else None
        for metric, value in rates:
            floor = _rounds(control, value) if control else None
            throughput.append(_compare(variant, metric, _rounds(base, value), _rounds(trials, value), floor))
        for class_id, text in sorted(classes.items()):
            value = _p95_of(class_id)
            floor = _rounds(control, value) if control else None
            compared = _compare(
                variant, "p95", _rounds(base, value), _rounds(trials, value), floor, class_id, text
            )
            compared.baseline_server_p95_s = _server_p95(base, class_id)
            compared.variant_server_p95_s = _server_p95(trials, class_id)
            fingerprints.append(compared)
    return throughput, fingerprints


def _control(found: Sequence[ConcurrentVerdict], by: dict[str, list[TrialRecord]], baseline: str) -> None:
    """Benjamini-Hochberg over the time comparisons (in place), then the causes of the slower."""
    tested = [(one, one.p_value) for one in found if one.p_value is not None]
    for (one, _), q in zip(tested, fdr.adjusted([p for _, p in tested]), strict=True):
        one.q_value = q
        if one.group in ("slower", "faster") and q > fdr.Q:
            one.reason = (
                f"would be {one.group}: {one.reason}; not after false-discovery control "
                f"(Benjamini-Hochberg q = {q:.3f} > {fdr.Q:.2f})"
            )
            one.group = "undecided"
    for one in found:
        if one.group == "slower":
            one.causes = _causes(by[baseline], by[one.variant])


def _groups(
    by: dict[str, list[TrialRecord]],
    baseline: str,
    found: Sequence[ConcurrentVerdict | ErrorFinding | TableFinding],
) -> list[VariantGroups]:
    out = []
    for variant, trials in by.items():
        if variant == baseline:
            continue
        counts = Counter(one.group for one in found if one.variant == variant)
        copies = [t.copy_s for t in trials if t.copy_s is not None]
        out.append(
            VariantGroups(
                variant=variant,
                trials=len(trials),
                **{group: counts.get(group, 0) for group in GROUPS},
                copy_s=float(np.median(copies)) if copies else None,
                wall_s=float(np.median([t.summary.wall_s for t in trials])) if trials else None,
            )
        )
    return out


def decide(
    variants: Sequence[str],
    trials: Sequence[TrialRecord],
    aa_control: str | None = None,
    partial: bool = False,
) -> ConcurrentReport:
    """The report of `trials` (module docstring): `variants` in the replay's order (the first is the
    baseline), `aa_control` the name of the variant that repeats the baseline's (None: none),
    `partial` for a cancelled replay's trials so far. ValueError naming a trial's variant that
    `variants` does not hold, an `aa_control` that is no variant, or no variant at all."""
    if not variants:
        raise ValueError("variants: at least one (the baseline)")
    if aa_control is not None and aa_control not in variants[1:]:
        raise ValueError(f"aa_control {aa_control!r}: not a variant other than the baseline")
    unknown = sorted({t.variant for t in trials} - set(variants))
    if unknown:
        raise ValueError(f"trials of variants {unknown}: not among the variants {list(variants)}")
    baseline = variants[0]
    grouped = _by_variant(trials)
    by = {name: grouped.get(name, []) for name in variants}
    throughput, fingerprints = _time_verdicts(by, baseline, aa_control)
    _control([*throughput, *fingerprints], by, baseline)
    errors, tables = error_findings(by, baseline, aa_control), table_findings(by, baseline, aa_control)
    decide_breaks(errors, tables)
    times = sum(1 for one in [*throughput, *fingerprints] if one.p_value is not None)
    return ConcurrentReport(
        baseline=baseline,
        aa_control=aa_control,
        server_clocks=_server_clocks(by),
        throughput=throughput,
        fingerprints=fingerprints,
        errors=errors,
        tables=tables,
        groups=_groups(by, baseline, [*throughput, *fingerprints, *errors, *tables]),
        fdr=FDR_TEXT.format(times=times, breaks=len(errors) + len(tables), q=fdr.Q),
        partial=partial,
    )
