"""The probes' part of a run's stored results, registered with the results store (results/store/hooks.py):
per iteration its probe deltas (probe_sample rows), at run end its packed probe columns (probe_series).

`register()` is explicit, not done on import: the API app (main.create_app) and the worker's start-up
(worker_start.py) call it, and so does any process that stores a run's results by itself (a test,
a bench). Calling it again is a no-op.
"""

from sqlalchemy.orm import Session

from upgradelab.probes import service
from upgradelab.probes.base import Measurement
from upgradelab.probes.series import store_probe_series_in
from upgradelab.results.store import hooks

ATTACHED = "probes"  # the name the run loop attaches an iteration's measurements under


def _iteration(session: Session, iteration: hooks.IterationEnd) -> None:
    measurements = [m for m in iteration.attached.get(ATTACHED, ()) if isinstance(m, Measurement)]
    place = iteration.place
    service.record_iteration(session, place.run_id, place.variant_index, place.iteration, measurements)


def _run_end(session: Session, ended: hooks.RunEnd) -> None:
    store_probe_series_in(session, ended.run, client=ended.series)


def register() -> None:
    """Register the probe hooks with the results store (idempotent)."""
    hooks.on_iteration(_iteration)
    hooks.on_run_end(_run_end)
