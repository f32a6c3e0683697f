"""`upgradelab run`: submit an experiment and its run through the API, wait for it, print the
per-variant summary (text or --json) from the stored verdicts."""

import json
import time
from typing import TYPE_CHECKING, Annotated, Any

import httpx
import typer

from upgradelab.cli.client import ApiOption, TokenOption, auth_headers, default_api, error_text
from upgradelab.cli.pools import waiting_note

# The API's schemas and the verdicts import the statistics (scipy) and the models (sqlalchemy): read
# inside the functions that parse or print an answer, so the command line starts without them.
if TYPE_CHECKING:
    from upgradelab.results.views.comparison_schemas import Comparison, ComparisonRow
    from upgradelab.results.views.contrasts import ContrastRead, RunContrasts
    from upgradelab.runs.schemas import RunProgress, RunRead


def _variant_spec(text: str) -> dict[str, Any]:
    """TARGET[:PRESET] -> {"target", "preset"}; PRESET may join presets with '+'."""
    target, _, preset = text.partition(":")
    if not target:
        raise typer.BadParameter(f"--variant {text!r}: expected TARGET[:PRESET], e.g. mysql-9.7:redo-off")
    return {"target": target, "preset": preset or "default"}


def _parameter(text: str) -> tuple[str, Any]:
    """KEY=VALUE -> (key, value); VALUE is read as JSON when it parses (numbers, lists, true, null),
    else kept as a string: --param rows=20480 --param tables='["test_long"]' --param script=oltp_read_only."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise typer.BadParameter(f"--param {text!r}: expected KEY=VALUE, e.g. rows=20480")
    try:
        value: Any = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


def run(
    workload: Annotated[str, typer.Option(help="Workload slug.")] = "insert-truncate",
    variant: Annotated[list[str], typer.Option(help="TARGET[:PRESET], repeat for each variant.")] = [],  # noqa: B006
    iterations: Annotated[
        int | None, typer.Option(min=1, help="Per variant; default: the workload's.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Experiment name.")] = None,
    param: Annotated[
        list[str], typer.Option(help="Template parameter KEY=VALUE (JSON values), repeatable.")
    ] = [],  # noqa: B006
    policy: Annotated[
        str | None,
        typer.Option(help="warm | cold_first | cold_each_group | cold_every; default: the template's."),
    ] = None,
    schedule: Annotated[
        str,
        typer.Option(
            help="interleaved (rounds of shuffled blocks) | sequential (one variant after another)."
        ),
    ] = "interleaved",
    rounds: Annotated[int | None, typer.Option(min=1, help="Interleaved rounds; default 10.")] = None,
    block: Annotated[
        int | None, typer.Option(min=1, help="Iterations per block; default: iterations / rounds.")
    ] = None,
    aa_control: Annotated[
        bool, typer.Option("--aa-control", help="Add a second instance of the first variant (A/A).")
    ] = False,
    seed: Annotated[int | None, typer.Option(min=0, help="Seed of the round order; default: random.")] = None,
    max_rounds: Annotated[
        int | None,
        typer.Option(
            min=1, help="Add rounds while a verdict is inconclusive, up to this many; default: off."
        ),
    ] = None,
    max_minutes: Annotated[
        float | None,
        typer.Option(min=0.1, help="No round added after this many minutes (with --max-rounds)."),
    ] = None,
    statement_timeout: Annotated[
        float | None,
        typer.Option(
            min=0.1,
            max=3600,
            help="custom-sql: seconds each statement may run (default 30); past it the variant fails.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    api: ApiOption = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the run.")] = 3600.0,
    token: TokenOption = None,
) -> None:
    """Submit a run to the queue, wait for it, print the per-variant summary.

    JSON: {"run_id", "status", "error", "contrasts", "contrast_changes", "summary": [one row per
    variant (and group, and metric for templates with several primary metrics): {"variant", "group"?,
    "metric", "unit", "iterations", "rounds", "median_s", "p95_s", "median", "p95", VERDICT,
    "aa_ratio", "aa_ratio_low", "aa_ratio_high"}]}: times in seconds (client-side, per iteration),
    median/p95 in the metric's unit, ratios to the first variant from the rounds (see
    docs/architecture.md, verdicts); VERDICT is the one flat spelling of a verdict
    (results/stats/verdicts.py `columns`): "ratio", "ratio_low", "ratio_high", "ratio_rounds",
    "method", "mde", "verdict", "reason" (the baseline's row: ratio 1.0, verdict "baseline").
    "contrasts": the template's within-variant ratios [{"variant", "name", VERDICT}];
    "contrast_changes": each variant's contrast over the first variant's [{"name", "baseline",
    "variant", VERDICT}] (results/views/contrasts.py; [] for a template without contrasts).
    Exit code 1 unless succeeded.
    """
    if not variant:
        raise typer.BadParameter("give at least one --variant TARGET[:PRESET]", param_hint="--variant")
    parameters = dict(_parameter(p) for p in param)
    if statement_timeout is not None:
        if workload != "custom-sql":
            raise typer.BadParameter("custom-sql only", param_hint="--statement-timeout")
        parameters["statement_timeout_s"] = statement_timeout
    base = (api or default_api()).rstrip("/")
    body = {
        "workload": workload,
        "iterations": iterations,
        "name": name,
        "variants": [_variant_spec(v) for v in variant],
        "parameters": parameters,
        "schedule": schedule,
        "rounds": rounds,
        "block": block,
        "aa_control": aa_control,
        "seed": seed,
        "max_rounds": max_rounds,
        "max_minutes": max_minutes,
    }
    if policy is not None:
        body["policy"] = policy
    try:
        run, comparison, contrasts = _submit_and_wait(base, body, timeout, token)
    except httpx.HTTPError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(2) from unreachable
    status, error = str(run.status), run.error
    summary = _summary(comparison)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "run_id": run.id,
                    "status": status,
                    "error": error,
                    **_contrast_rows(contrasts),
                    "summary": summary,
                },
                indent=2,
            )
        )
    else:
        typer.echo(f"run {run.id}: {status}")
        for row, compared in zip(summary, comparison.rows if comparison else [], strict=True):
            typer.echo(_summary_line(row, compared))
        for contrast in contrasts.within:
            typer.echo(_contrast_line(contrast))
        if error:
            typer.echo(error, err=True)
    if status != "succeeded":
        raise typer.Exit(1)


def _submit_and_wait(
    base: str, body: dict[str, Any], timeout: float, token: str | None
) -> "tuple[RunRead, Comparison | None, RunContrasts]":
    """POST the experiment and its run, poll the run until final; the last RunRead, the verdict
    table (GET /api/compare, stored once when the run ended; None when the API gives none) and the
    contrasts (GET /api/runs/{id}/results, empty when it gives none). Responses
    are parsed into the API's own schemas, so a changed shape fails here, naming the field. The
    schemas (scipy, sqlalchemy: ~1-2.5 CPU-s each to import) are imported once the experiment is
    accepted: an unreachable API or a refusal exits without them."""
    with httpx.Client(base_url=base, timeout=30, headers=auth_headers(token)) as client:
        created = client.post("/api/experiments", json=body)
        if created.status_code in (401, 403):
            typer.echo(f"not allowed: {error_text(created)} (give --token or UPGRADELAB_TOKEN)", err=True)
            raise typer.Exit(2)
        if created.status_code != 201:
            typer.echo(f"experiment refused: {error_text(created)}", err=True)
            raise typer.Exit(2)
        from upgradelab.experiments.schemas import ExperimentRead
        from upgradelab.results.views.comparison_schemas import Comparison
        from upgradelab.results.views.contrasts import RunContrasts
        from upgradelab.runs.schemas import RunRead

        experiment = ExperimentRead.model_validate_json(created.content)
        queued = client.post(f"/api/experiments/{experiment.id}/runs")
        if queued.status_code == 409:  # e.g. its variants' targets are in different worker pools
            typer.echo(f"run refused: {error_text(queued)}", err=True)
            raise typer.Exit(2)
        queued.raise_for_status()
        run = RunRead.model_validate_json(queued.content)
        typer.echo(f"run {run.id} queued: {base}/runs/{run.id}", err=True)
        deadline = time.monotonic() + timeout
        shown: RunProgress | None = None
        said: str | None = None
        while not run.status.is_final and time.monotonic() < deadline:
            time.sleep(1.0)
            run = RunRead.model_validate_json(client.get(f"/api/runs/{run.id}").content)
            note = waiting_note(client, "run", run.id) if run.status == "queued" else None
            if note and note != said:  # not silently: its pool has no live worker
                typer.echo(note, err=True)
            said = note
            if run.progress and run.progress != shown:
                typer.echo(_progress_text(run.progress), err=True)
                shown = run.progress
        verdicts = client.get("/api/compare", params={"runs": str(run.id), "series": "false"})
        comparison = Comparison.model_validate_json(verdicts.content) if verdicts.status_code == 200 else None
        results = client.get(f"/api/runs/{run.id}/results", params={"max_points": 10})
        contrasts = (
            RunContrasts.model_validate(results.json()["contrasts"])
            if results.status_code == 200
            else RunContrasts()
        )
    return run, comparison, contrasts


def _contrast_rows(contrasts: "RunContrasts") -> dict[str, list[dict[str, Any]]]:
    """The --json "contrasts" and "contrast_changes" rows (see `run`'s docstring for the shape)."""
    from upgradelab.results.stats import verdicts

    return {
        "contrasts": [
            {"variant": row.variant, "name": row.name, **verdicts.columns(row.verdict)}
            for row in contrasts.within
        ],
        "contrast_changes": [
            {"name": row.name, "baseline": row.baseline, "variant": row.variant}
            | verdicts.columns(row.verdict)
            for row in contrasts.across
        ],
    }


def _contrast_line(row: "ContrastRead") -> str:
    """One text line: variant, contrast name, ratio [interval] verdict."""
    from upgradelab.results.stats import verdicts

    decided = row.verdict.verdict if row.verdict else "-"
    return f"  {row.variant:<30} {row.name:<32} {verdicts.text(row.verdict):<28} {decided}"


def _summary(comparison: "Comparison | None") -> list[dict[str, Any]]:
    """The --json summary rows from GET /api/compare (see `run`'s docstring for the shape)."""
    from upgradelab.results.stats import verdicts

    if comparison is None:
        return []
    rows = []
    grouped = any(row.group for row in comparison.rows)
    for row in comparison.rows:
        out: dict[str, Any] = {"variant": row.variant, **({"group": row.group} if grouped else {})}
        out |= row.model_dump(include={"metric", "unit", "iterations", "rounds", "median_s", "p95_s"})
        out |= {"median": row.median, "p95": row.p95}
        out |= verdicts.columns(row.ratio)
        if row.is_baseline:
            out |= {"ratio": 1.0, "verdict": "baseline"}
        out |= verdicts.columns(row.aa_floor, "aa_", ("ratio", "ratio_low", "ratio_high"))
        rows.append(out)
    return rows


def _summary_line(row: dict[str, Any], compared: "ComparisonRow") -> str:
    """One text line: variant [group] metric, iterations, rounds, median, ratio [interval] verdict
    (results/stats/verdicts.py `text`; the baseline: "1.00x")."""
    from upgradelab.results.stats import verdicts

    name = f"{row['variant']} {row.get('group', '')}".strip()
    median = "-" if row["median"] is None else f"{row['median']:.4g} {row['unit']}"
    ratio = "1.00x" if compared.is_baseline else verdicts.text(compared.ratio)
    return (
        f"  {name:<40} {row['metric']:<8} n={row['iterations']:<5} rounds={row['rounds']:<3} "
        f"median {median:<14} {ratio:<26} {row['verdict'] or '-'}"
    )


def _progress_text(progress: "RunProgress") -> str:
    """One stderr line of dataset preparation progress (rows, MB, elapsed and estimated seconds)."""
    parts = [progress.phase]
    if progress.rows_total:
        parts.append(f"{progress.rows or 0:,} / {progress.rows_total:,} rows")
    if progress.bytes is not None:
        parts.append(f"~{progress.bytes / 1048576:.1f} MB")
    if progress.elapsed_s is not None:
        parts.append(f"{progress.elapsed_s:.1f} s elapsed")
    if progress.estimate_s is not None:
        parts.append(f"~{progress.estimate_s:.0f} s estimated")
    return "dataset: " + ", ".join(parts)
