"""What other packages store beside a run's results: hooks called in the same session and commit as
the iteration rows (per iteration) and as the verdict table (at run end).

The store does not know who registers: probes/hooks.py adds its probe rows and packed probe columns
(`register()`, called where the API app and the worker's run task are set up). A hook registered
twice runs once; hooks run in registration order.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from upgradelab.results.store.series_store import Columns
from upgradelab.runs.models import Run


@dataclass(frozen=True)
class Place:
    """Where an iteration ran: variant, 1-based iteration over the variant, group, round (1-based),
    block (1-based over the run, execution order) and position (0-based place in its round)."""

    run_id: int
    variant_index: int
    variant: str
    iteration: int
    group: str
    round: int
    block: int
    position: int


@dataclass(frozen=True)
class IterationEnd:
    """One stored iteration as its hooks see it: where it ran, its seconds (the sum of its statements'
    client-side times) and what the run loop attached to it by name ("probes": the probe deltas,
    probes.base.Measurement), each hook taking its own."""

    place: Place
    elapsed_s: float
    attached: Mapping[str, Sequence[object]] = field(default_factory=dict)


@dataclass(frozen=True)
class RunEnd:
    """A run whose results are being stored at its end: the run and its iteration series just packed
    (per variant in experiment order: iteration numbers, seconds; results/store/series_store.py)."""

    run: Run
    series: list[Columns]


IterationHook = Callable[[Session, IterationEnd], None]
RunEndHook = Callable[[Session, RunEnd], None]

_iteration_hooks: list[IterationHook] = []
_run_end_hooks: list[RunEndHook] = []


def on_iteration(hook: IterationHook) -> IterationHook:
    """Register `hook(session, iteration)`: called when an iteration is stored, before its commit (it
    adds rows to `session`, never commits). Usable as a decorator; registering twice is a no-op."""
    if hook not in _iteration_hooks:
        _iteration_hooks.append(hook)
    return hook


def on_run_end(hook: RunEndHook) -> RunEndHook:
    """Register `hook(session, ended)`: called when a run's results are stored at its end (or recomputed
    on first read), before the commit. Usable as a decorator; registering twice is a no-op."""
    if hook not in _run_end_hooks:
        _run_end_hooks.append(hook)
    return hook


def iteration_ended(session: Session, iteration: IterationEnd) -> None:
    """Run every iteration hook (results/store/ingest.py)."""
    for hook in _iteration_hooks:
        hook(session, iteration)


def run_ended(session: Session, ended: RunEnd) -> None:
    """Run every run-end hook (results/store/summary.py)."""
    for hook in _run_end_hooks:
        hook(session, ended)
