"""One statement's outcome on a variant against the baseline's (`diff`): error code, warnings, result
(row count and the order-insensitive checksum), an order change only, plan, a refusal, a timeout,
and the known cause of a break (causes.py). replay/compare.py's module docstring says what each
field means; the fix search reads `breaks` of a remedied statement against its original.
"""

from upgradelab.measurement.causes import Difference, known_cause
from upgradelab.measurement.outcomes import Outcome
from upgradelab.measurement.shapes import Cause, ErrorChange, StatementDiff
from upgradelab.measurement.sources import SourceStatement


def _plan_key(outcome: Outcome) -> list[tuple[str, str | None, str | None]]:
    return [(step.table, step.access_type, step.key) for step in outcome.plan]


def _error(outcome: Outcome) -> int | None:
    return outcome.error_code if outcome.kind == "error" else None


def _error_change(base: Outcome, other: Outcome) -> ErrorChange | None:
    before, after = _error(base), _error(other)
    if before is None and after is None:
        return None
    if before is None:
        return "new" if other.kind == "error" else None
    if after is None:
        return "resolved" if other.kind == "ran" else None
    return "same" if before == after else "changed"


def diff(
    base: Outcome,
    other: Outcome,
    statement: SourceStatement,
    variant: str,
    timed_out: tuple[bool, bool] = (False, False),
    same_flavor: bool = True,
) -> StatementDiff:
    """Compare one statement's outcome on a variant with the baseline's; timed_out: whether it timed
    out on (the baseline, the variant), when captured or in a timed run; same_flavor: both servers
    are MySQL or both MariaDB (plans are compared only then)."""
    both_ran = base.kind == "ran" and other.kind == "ran"
    result = both_ran and (
        base.row_count != other.row_count or base.checksum_unordered != other.checksum_unordered
    )
    ordering = both_ran and not result and base.checksum_ordered != other.checksum_ordered
    found = StatementDiff(
        variant=variant,
        error=_error(base) != _error(other),
        refused=(base.kind == "refused") != (other.kind == "refused"),
        timed_out=timed_out[0] != timed_out[1],
        warnings={w[1] for w in base.warnings} != {w[1] for w in other.warnings},
        result=result,
        ordering_only=ordering,
        unordered_query=ordering and "order by" not in statement.fingerprint,
        plan=same_flavor and both_ran and _plan_key(base) != _plan_key(other),
        error_change=_error_change(base, other),
        plan_compared=same_flavor,
    )
    if found.breaks:
        cause = known_cause(Difference(statement.sql, statement.fingerprint, base, other, result, ordering))
        if cause is not None:
            found.cause = Cause(id=cause.id, title=cause.title, check=cause.check)
    return found
