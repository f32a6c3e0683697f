"""A fix search's turns go through the measurement library's public API (issue 48, item 3): each turn
on a side is `server_turn(side, settings)` on a `TurnServer` (the instance thawed, the settings in
force on its connection, set back, frozen again), and a candidate's ratios are the library's
`time_ratio` at the looks' confidence (fixsearch/search.py kept a copy of it, `ratio`)."""

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

import pytest

from upgradelab.execution.instances import Instance
from upgradelab.fixsearch.search import judge
from upgradelab.fixsearch.sides import Side
from upgradelab.measurement import THRESHOLD, TurnServer, server_turn, time_ratio
from upgradelab.results.stats import verdicts
from upgradelab.targets.provisioners.base import Provisioner


class Recorded:
    """A provisioner's freeze and thaw and a server's session, written to one list in order."""

    def __init__(self, said: list[str]) -> None:
        self.said = said

    def freeze(self) -> None:
        self.said.append("freeze")

    def thaw(self) -> None:
        self.said.append("thaw")


class Server:
    """A TurnServer whose session records what it sets and sets back."""

    def __init__(self, instance: Instance, said: list[str]) -> None:
        self.instance, self.said = instance, said

    @contextmanager
    def session(self, settings: dict[str, str]) -> Iterator[None]:
        self.said.append(f"set {sorted(settings.items())}")
        try:
            yield
        finally:
            self.said.append("set back")


def instance_of(said: list[str], variants: list[int]) -> Instance:
    return Instance(cast(Provisioner, Recorded(said)), [], variants)


class _Broke(Exception):
    pass


def test_a_turn_thaws_sets_sets_back_and_freezes_in_that_order() -> None:
    said: list[str] = []
    server: TurnServer = Server(instance_of(said, [0]), said)
    with server_turn(server, {"optimizer_switch": "derived_merge=off"}):
        said.append("statements")
    assert said == [
        "thaw",
        "set [('optimizer_switch', 'derived_merge=off')]",
        "statements",
        "set back",
        "freeze",
    ]

    said.clear()
    with server_turn(server):  # no settings: an empty session, nothing set
        said.append("statements")
    assert said == ["thaw", "set []", "statements", "set back", "freeze"]


def test_a_turn_that_raises_sets_back_and_leaves_the_instance_thawed() -> None:
    said: list[str] = []
    server = Server(instance_of(said, [0]), said)
    with pytest.raises(_Broke), server_turn(server, {"join_buffer_size": "262144"}):
        raise _Broke
    assert said == ["thaw", "set [('join_buffer_size', '262144')]", "set back"]  # no freeze: the end stops it


def test_a_shared_instance_is_thawed_for_a_turn_and_never_frozen() -> None:
    said: list[str] = []
    with server_turn(Server(instance_of(said, [0, 1]), said)):
        pass
    assert said == ["thaw", "set []", "set back"]


def test_the_fix_searchs_side_is_a_turn_server() -> None:
    assert TurnServer in Side.__mro__  # mypy checks its session and instance against the protocol
    assert "instance" in Side.__dataclass_fields__


def test_a_candidates_ratios_are_the_librarys_time_ratio_at_the_looks_confidence() -> None:
    noise = random.Random(5)
    rounds = {
        arm: {r: [seconds * (1 + noise.gauss(0, 0.05))] for r in range(1, 11)}
        for arm, seconds in (("base", 1.0), ("var", 2.0), ("cand", 1.04))
    }
    looks = 5
    confidence = verdicts.confidence_for(looks)
    trial = judge("c", rounds["base"], rounds["var"], rounds["cand"], True, 10, looks=looks)
    for got, (low, high) in (
        (trial.ratio_to_baseline, ("base", "cand")),
        (trial.ratio_to_variant, ("var", "cand")),
        (trial.variant_to_baseline, ("base", "var")),
    ):
        expected = verdicts.read(
            verdicts.interval(rounds[low], rounds[high], paired=True, confidence=confidence), THRESHOLD
        )
        assert got == expected == time_ratio(rounds[low], rounds[high], confidence=confidence)
    # the confidence is used: at 99 % the interval is wider than the replay's 95 %
    wide, narrow = (
        time_ratio(rounds["base"], rounds["cand"], confidence=confidence),
        time_ratio(rounds["base"], rounds["cand"]),
    )
    assert wide is not None and narrow is not None
    assert wide.low < narrow.low and wide.high > narrow.high
