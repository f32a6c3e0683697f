"""Fixtures of the fault tests: a throw-away instance per test (tests/faults/instance.py)."""

from collections.abc import Callable, Iterator

import pytest

from tests.faults.instance import LabInstance, Template


@pytest.fixture(scope="session")
def template() -> Iterator[Template]:
    """The metadata database every instance of this test process starts from (set up once)."""
    prepared = Template()
    yield prepared
    prepared.remove()


@pytest.fixture
def start_lab(template: Template) -> Iterator[Callable[..., LabInstance]]:
    """start_lab(**LabInstance options): Redis, a worker and the API of a fresh instance;
    everything stopped afterwards. At most one instance per test (they share the fault ports)."""
    started: list[LabInstance] = []

    def start(**options: float) -> LabInstance:
        assert not started, "one instance per test: they share the fault ports"
        instance = LabInstance(template, **options)
        started.append(instance)
        instance.prepare()
        instance.start()
        return instance

    try:
        yield start
    finally:
        for instance in started:
            instance.close()


@pytest.fixture
def lab(start_lab: Callable[..., LabInstance]) -> LabInstance:
    """An instance with the product's default lease, heartbeat and reaper interval."""
    return start_lab()
