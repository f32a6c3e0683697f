"""A fix search as CSV (GET /api/fixsearches/{id}/export?format=csv, as attributions export): one row
per trial (kind "trial": its scope, status, ratio with interval against the baseline and against the
variant as it is, results equal, what to apply, the plan before and after, a global remedy's side-effect
check in counts), then one row per side effect of a global remedy (kind "side effect": the
fingerprint it slows or whose results it changes, its ratio with / without the setting and
interval). Ratios in the one flat spelling every export uses (verdicts.columns)."""

import csv
import io
from typing import Any

from upgradelab.fixsearch.schemas import FixPlanStep, FixSearchRead, FixTrialRead
from upgradelab.results.stats import verdicts


def plan_text(plan: list[FixPlanStep] | None) -> str:
    """A plan in one cell: `table:access/key` per step in join order ("-": no key)."""
    return " > ".join(f"{s.table}:{s.access_type or '-'}/{s.key or '-'}" for s in plan or [])


def _trial(read: FixSearchRead, trial: FixTrialRead) -> dict[str, Any]:
    candidate = next((c for c in read.candidates if trial.name in (c.name, f"{c.name} (global)")), None)
    effects = trial.side_effects
    return {
        "kind": "trial",
        "candidate": trial.name,
        "scope": trial.scope,
        "source": candidate.source if candidate else None,
        "status": trial.status,
        "reason": trial.reason,
        "results_equal": trial.results_equal,
        "rounds": trial.rounds,
        "clock": trial.clock,
        **verdicts.columns(trial.ratio_to_baseline, "to_baseline_"),
        **verdicts.columns(trial.ratio_to_variant, "to_variant_"),
        "apply": trial.apply or (candidate.apply if candidate else None),
        "set_global": trial.set_global,
        "plan_before": plan_text(trial.plan_before),
        "plan_after": plan_text(trial.plan_after),
        "plan_error": trial.plan_error,
        "side_effects_complete": effects.complete if effects else None,
        "side_effects_checked": len(effects.checked) if effects else None,
        "side_effects": len(effects.side_effects) if effects else None,
        "affected_fingerprint": None,
        "affected_results_equal": None,
        **verdicts.columns(None, "affected_"),
    }


def csv_rows(read: FixSearchRead) -> list[dict[str, Any]]:
    """The rows (module docstring), each led by the search's id, replay, fingerprint, variant and outcome."""
    lead = {
        "search_id": read.id,
        "replay_id": read.replay_id,
        "fingerprint_id": read.fingerprint_id,
        "variant": read.variant,
        "outcome": read.result.outcome if read.result else read.status,
    }
    rows = []
    for trial in read.tried:
        row = _trial(read, trial)
        rows.append({**lead, **row})
        for effect in trial.side_effects.side_effects if trial.side_effects else []:
            rows.append({**lead, **{key: None for key in row}, "kind": "side effect", "candidate": trial.name,
                         "scope": trial.scope, "affected_fingerprint": effect.fingerprint_id,
                         "affected_results_equal": effect.results_equal,
                         **verdicts.columns(effect.ratio, "affected_")})  # fmt: skip
    return rows


def export_csv(read: FixSearchRead) -> str:
    """The CSV text (header only when nothing was tried)."""
    rows = csv_rows(read)
    out = io.StringIO()
    fields = list(rows[0]) if rows else ["search_id", "kind", "candidate"]
    writer = csv.DictWriter(out, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
