"""Probes: what is read from the server around an iteration, outside the timed region.

Each probe lives in its own module (buffer_pool, mutex_waits, statement_time) and reads its
counters from a separate connection before and after an iteration; the ProbeSet (probe_set.py)
turns the two readings into per-iteration deltas, stored as probe_sample rows with the iteration by the
hooks probes registers with the results store (hooks.py `register`).
"""

from upgradelab.probes.base import Measurement, Probe, ProbeUnavailable
from upgradelab.probes.probe_set import ProbeSet, startup_options

__all__ = ["Measurement", "Probe", "ProbeSet", "ProbeUnavailable", "startup_options"]
