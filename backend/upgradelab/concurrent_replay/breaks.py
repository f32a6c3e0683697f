"""A concurrent replay's breaks (decide.py's other half): the error codes its variants' trials hit
and the tables whose data ends otherwise, each compared with the reference's trials. Pure.

Errors: a code a variant's trials hit is compared, by the trials it appears in, with the reference:
the baseline's trials, and the A/A control's for any other variant (a replay's interleaving is not
the recording's: an A/A replay has its own deadlocks and duplicate keys, and they are not the
upgrade's). One-sided Fisher exact test (scipy.stats.fisher_exact): "breaks" when it appears more
often than in the reference after Benjamini-Hochberg across the replay's error and table tests;
"undecided" when the reference never had it but too few trials did; "same" when the reference has it
too. A code only the baseline hits is not listed (the variant resolved it).

Data at the end: per table, the reference's most common checksum; a variant's trial differs when
its checksum is another (or the table is missing); decided as errors are ("breaks": the write replay
ends with other data, the table named). Trials that did not run to their end (`stopped`) are left
out of the data comparison: their end is the stop's, not the workload's.
"""

from collections import Counter

import numpy as np

from upgradelab.concurrent_replay.report import ErrorFinding, TableFinding, TrialRecord
from upgradelab.measurement import ErrorSample
from upgradelab.results.stats import fdr

BREAK_P = fdr.Q


def _fisher(appears: int, trials: int, reference: int, reference_trials: int) -> float:
    from scipy import stats  # ~1 CPU-s: imported by the first decision, not by every importer

    table = np.array([[appears, trials - appears], [reference, reference_trials - reference]])
    return float(stats.fisher_exact(table, alternative="greater").pvalue)


def _reference(
    by: dict[str, list[TrialRecord]], baseline: str, aa: str | None, variant: str
) -> list[TrialRecord]:
    extra = by.get(aa, []) if aa is not None and variant != aa else []
    return [*by[baseline], *extra]


def error_findings(by: dict[str, list[TrialRecord]], baseline: str, aa: str | None) -> list[ErrorFinding]:
    """Each error code each non-baseline variant's trials hit (`by`: variant -> its trials in round
    order), with its counts per trial, the trials it appears in against the reference's, its first
    failure and its Fisher p-value; not yet decided (`decide_breaks`)."""
    out: list[ErrorFinding] = []
    for variant, trials in by.items():
        if variant == baseline:
            continue
        reference = _reference(by, baseline, aa, variant)
        codes = sorted({e.code for t in trials for e in t.summary.errors})
        for code in codes:
            per_trial = [next((e.count for e in t.summary.errors if e.code == code), 0) for t in trials]
            sample: ErrorSample = next(e for t in trials for e in t.summary.errors if e.code == code)
            appears = sum(1 for n in per_trial if n > 0)
            on_reference = sum(1 for t in reference if any(e.code == code for e in t.summary.errors))
            p = _fisher(appears, len(trials), on_reference, len(reference))
            out.append(
                ErrorFinding(
                    variant=variant,
                    code=code,
                    per_trial=per_trial,
                    appears=appears,
                    trials=len(trials),
                    reference_appears=on_reference,
                    reference_trials=len(reference),
                    p_value=p,
                    group="undecided",
                    reason="",
                    sample=sample,
                )
            )
    return out


def table_findings(by: dict[str, list[TrialRecord]], baseline: str, aa: str | None) -> list[TableFinding]:
    """Each table whose data at the end of a non-baseline variant's whole trials differs from the
    reference's most common checksum, with how often (and how often the reference's own trials
    differ) and its Fisher p-value; not yet decided (`decide_breaks`)."""
    out: list[TableFinding] = []
    for variant, trials in by.items():
        if variant == baseline:
            continue
        whole = [t for t in trials if t.summary.stopped is None]
        reference = [t for t in _reference(by, baseline, aa, variant) if t.summary.stopped is None]
        if not whole or not reference:
            continue
        tables = sorted({name for t in [*whole, *reference] for name in t.checksums})
        for table in tables:
            modal = Counter(t.checksums.get(table) for t in reference).most_common(1)[0][0]
            differs = sum(1 for t in whole if t.checksums.get(table) != modal)
            if differs == 0:
                continue
            on_reference = sum(1 for t in reference if t.checksums.get(table) != modal)
            p = _fisher(differs, len(whole), on_reference, len(reference))
            out.append(
                TableFinding(
                    variant=variant,
                    table=table,
                    differs=differs,
                    trials=len(whole),
                    reference_differs=on_reference,
                    reference_trials=len(reference),
                    p_value=p,
                    group="undecided",
                    reason="",
                )
            )
    return out


def decide_breaks(errors: list[ErrorFinding], tables: list[TableFinding]) -> None:
    """Benjamini-Hochberg across the error and table tests, then each one's group and reason."""
    tests: list[ErrorFinding | TableFinding] = [*errors, *tables]
    for one, q in zip(tests, fdr.adjusted([one.p_value for one in tests]), strict=True):
        one.q_value = q
        if isinstance(one, ErrorFinding):
            seen, of, ref, ref_of = one.appears, one.trials, one.reference_appears, one.reference_trials
            what = f"error {one.code} appears in {seen} of {of} trials, {ref} of {ref_of} reference trials"
        else:
            seen, of, ref, ref_of = one.differs, one.trials, one.reference_differs, one.reference_trials
            what = (
                f"{one.table} ends with other data in {seen} of {of} trials, "
                f"{ref} of {ref_of} reference trials"
            )
        if q <= BREAK_P:
            one.group, one.reason = "breaks", f"{what} (Fisher p = {one.p_value:.4f}, q = {q:.4f})"
        elif ref == 0:
            one.group = "undecided"
            one.reason = f"{what}: too few trials to decide (q = {q:.3f} > {BREAK_P:.2f})"
        else:
            one.group, one.reason = "same", f"{what}: the reference has it too"
