"""A concurrent replay as CSV (GET /api/concurrent-replays/{id}/export?format=csv): one row per
finding of its report, in the report's order: `kind` "throughput" (statements/s, transactions/s),
"p95" (a fingerprint's client p95 latency), "error" (an error code a variant's trials hit) or
"table" (a table whose data ended otherwise), its variant, what it is about (`subject`: the metric,
the fingerprint, "error 1020", the table), its group and reason; a time row's medians (a p95
row's on the client's clock, the one its verdict is on, and the server's p95 medians beside them,
empty where the server's clock is not available) and its verdict in the one flat spelling every
export uses (verdicts.columns), an error or table row's
`appears` of `trials` and the reference's, and an error's per-trial counts and sample statement."""

import csv
import io
from typing import Any

from upgradelab.concurrent_replay.report import ConcurrentReport
from upgradelab.results.stats import verdicts

COLUMNS = (
    "kind", "variant", "subject", "group", "baseline_median", "variant_median",
    "baseline_server_p95_s", "variant_server_p95_s", *verdicts.VERDICT_COLUMNS, "q_value", "appears",
    "trials", "reference_appears", "reference_trials",
    "per_trial", "sample", "causes",
)  # fmt: skip


def report_csv(report: ConcurrentReport | None) -> str:
    """The report's rows as CSV text (module docstring); the header alone without a report."""
    rows: list[dict[str, Any]] = []
    for one in [*(report.throughput if report else []), *(report.fingerprints if report else [])]:
        rows.append(
            {
                "kind": "throughput" if one.metric != "p95" else "p95",
                "variant": one.variant,
                "subject": one.fingerprint if one.metric == "p95" else one.metric,
                "group": one.group,
                "baseline_median": one.baseline_median,
                "variant_median": one.variant_median,
                "baseline_server_p95_s": one.baseline_server_p95_s,
                "variant_server_p95_s": one.variant_server_p95_s,
                **verdicts.columns(one.verdict),
                "reason": one.reason,
                "q_value": one.q_value,
                "causes": "; ".join(one.causes),
            }
        )
    for error in report.errors if report else []:
        sample = error.sample
        rows.append(
            {
                "kind": "error",
                "variant": error.variant,
                "subject": f"error {error.code}",
                "group": error.group,
                "reason": error.reason,
                "q_value": error.q_value,
                "appears": error.appears,
                "trials": error.trials,
                "reference_appears": error.reference_appears,
                "reference_trials": error.reference_trials,
                "per_trial": " ".join(map(str, error.per_trial)),
                "sample": f"session {sample.session} (thread {sample.thread_id}): {sample.sql}",
            }
        )
    for table in report.tables if report else []:
        rows.append(
            {
                "kind": "table",
                "variant": table.variant,
                "subject": table.table,
                "group": table.group,
                "reason": table.reason,
                "q_value": table.q_value,
                "appears": table.differs,
                "trials": table.trials,
                "reference_appears": table.reference_differs,
                "reference_trials": table.reference_trials,
            }
        )
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="raise")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
