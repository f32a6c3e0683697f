"""Which statements a replay times again after its planned rounds (engine.py `Extension`, step 4).

Why: a "same" needs the whole 95 % interval of a fingerprint's per-round ratios inside 1 +/- THRESHOLD
(compare.py). On the lab machine (bench/replay_resolution.py, A/A) each round's ratio scatters about
10 %, so at the default 20 rounds the median smallest detectable change is ~8.5 % and most
fingerprints stay undecided; the interval narrows with the square root of the rounds, and about 60
rounds bring it inside. Timing every statement 60 rounds would triple the replay; extending only
the undecided ones, EXTENSION_STEP rounds at a time (execution/schedule.py, as a run's
auto-extension), spends the rounds where a verdict is still open.

Undecided, per fingerprint: on some non-baseline variant its time verdict (after Benjamini-Hochberg,
as the report reads it) is "inconclusive" or "insufficient rounds", and its time is what would decide
its group there: not when it breaks, timed out or was refused on that variant (compare.py,
findings.py `variant_group`); a fingerprint without an interval (never timed on one side) has no
time to extend. Decided fingerprints are not timed again (engine.py `extension_steps`).

Statistics, honestly: each step is one more look at the same comparisons (sequential looks), and
stopping once a fingerprint decides gives it more chances of a wrong verdict than one test at a
fixed number of rounds. What keeps false slower/faster verdicts in check: a verdict needs the
interval clear of 1 and the ratio itself beyond 1 +/- THRESHOLD (a 10 % excursion the extra rounds
make rarer, not likelier: the interval narrows around the true ratio); Benjamini-Hochberg over the
final p-values of every comparison (findings.py) as without an extension; and the A/A bench
(bench/replay_resolution.py) measures that no false slower/faster comes out. The per-look confidence
stays 95 % (runs share theirs among the looks, results/stats/verdicts.py `confidence_for`: at the
9 looks of 20 -> 60 rounds that widens every interval ~1.4x and takes back most of what the extra
rounds narrow).
"""

from collections.abc import Iterable

from upgradelab.measurement import SourceStatement, VariantReplay
from upgradelab.replay.compare import compare
from upgradelab.replay.groups import Group
from upgradelab.replay.report import FingerprintResult

OPEN_VERDICTS = ("inconclusive", "insufficient rounds")
# Groups decided by something other than time (findings.py variant_group): more rounds change nothing.
NOT_BY_TIME: tuple[Group, ...] = ("breaks", "slower (timed out)", "timed out", "refused")


def undecided_fingerprints(reports: Iterable[FingerprintResult]) -> set[str]:
    """The fingerprint ids whose time is still open on some variant (module docstring)."""
    return {
        report.fingerprint_id
        for report in reports
        for name, ratio in report.ratios.items()
        if ratio.verdict in OPEN_VERDICTS
        and (finding := report.variants.get(name)) is not None
        and finding.group not in NOT_BY_TIME
    }


def still_undecided(
    statements: list[SourceStatement], replays: list[VariantReplay], aa_control: str | None = None
) -> list[int]:
    """Indexes (source order) of the statements whose fingerprint is still undecided on what
    `replays` timed so far, read as the report reads it (compare.py; aa_control as there; its stages
    are not read: they name causes, never a group)."""
    open_ids = undecided_fingerprints(compare(statements, replays, aa_control=aa_control, with_stages=False))
    return [index for index, one in enumerate(statements) if one.fingerprint_id in open_ids]
