"""Spare instances (targets/provisioners/spares.py) on the lab's real servers: after a throw-away
instance is discarded, a fresh one of the same slot and options is started and frozen; the next start
with the same options takes it (same process, fresh datadir, empty buffer pool), one with other
options kills it, and one nobody takes is killed when its time is up."""

import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests import ports
from tests.conftest import TEMPLATE_TARGETS
from upgradelab.db import sync_session
from upgradelab.settings import Settings, get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner, processes, spares

SLOT = 1  # a slot other than 0 listens on a port of its own: the spare's must carry over


def _make(name: str, keep_s: float) -> LocalProvisioner:
    with sync_session() as session:
        target = session.query(Target).filter(Target.name == name).one()
    settings = {**target.settings.stored(), "port": ports.UNIT_TARGETS[name]}
    app = get_settings().model_copy(update={"spare_instance_s": keep_s})
    return LocalProvisioner(f"{name}-spares", target.flavor, settings, app, slot=SLOT)


def _query(provisioner: LocalProvisioner, sql: str) -> list[tuple[object, ...]]:
    connection = provisioner.endpoint.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return list(cursor.fetchall())
    finally:
        connection.close()


def _frozen(provisioner: LocalProvisioner) -> list[psutil.Process]:
    """Server processes whose data directory is this slot's, stopped (SIGSTOP)."""
    data = str(provisioner._host("data"))
    found = []
    for process in psutil.process_iter(["name", "cmdline", "status"]):
        if process.info["name"] in processes.SERVER_NAMES and process.info["status"] == psutil.STATUS_STOPPED:
            cnf = next((a for a in process.info["cmdline"] or [] if a.startswith("--defaults-file=")), "")
            inner = cnf.removeprefix("--defaults-file=").removesuffix("/my.cnf")
            if inner and data.endswith(f"{inner}/data"):
                found.append(process)
    return found


@pytest.fixture(params=TEMPLATE_TARGETS)
def target(request: pytest.FixtureRequest, database: None) -> Iterator[str]:
    yield request.param
    spares.discard_all()
    _make(request.param, 0).stop_all()


def _serve_then_discard(name: str, options: list[str], keep_s: float) -> LocalProvisioner:
    first = _make(name, keep_s)
    first.start(options)
    _query(first, "CREATE DATABASE leftover")
    _query(first, "SELECT COUNT(*) FROM mysql.user")
    first.discard()
    spares.release()  # as the job's lifecycle does once its final state is written
    spares.settle(120)
    return first


def test_the_next_start_with_the_same_options_takes_the_spare(target: str) -> None:
    first = _serve_then_discard(target, ["max-connections=77"], keep_s=60)
    (spare,) = _frozen(first)
    second = _make(target, 60)
    assert second.port == first.port  # the spare's port, not a new free one
    second.start(["max-connections=77"])
    assert second.pid() == spare.pid  # taken: the same process, thawed
    assert spare.status() != psutil.STATUS_STOPPED
    assert _query(second, "SHOW DATABASES LIKE 'leftover'") == []  # a fresh copy of the template
    assert _query(second, "SELECT @@max_connections") == [(77,)]
    # started cold: its buffer pool holds what the server's own start read, not the last run's pages
    (pages,) = _query(second, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_data'")
    assert int(str(pages[1])) < 2000, pages
    second.discard()  # served: it is followed by a spare of its own ...
    assert len(_frozen(second)) == 0  # ... once the job has ended (release), not before
    spares.release()
    spares.settle(120)
    assert spares.count() == 1 and len(_frozen(second)) == 1
    spares.discard_all()
    assert spares.count() == 0 and _frozen(second) == []
    assert not Path(second._host("data")).exists()


def test_a_start_with_other_options_kills_the_spare_and_starts_fresh(target: str) -> None:
    first = _serve_then_discard(target, ["max-connections=77"], keep_s=60)
    (spare,) = _frozen(first)
    second = _make(target, 0)
    second.start(["max-connections=78"])
    assert not spare.is_running() or spare.status() == psutil.STATUS_ZOMBIE
    assert second.pid() != spare.pid
    assert _query(second, "SELECT @@max_connections") == [(78,)]
    assert _query(second, "SHOW DATABASES LIKE 'leftover'") == []
    second.discard()  # spare_instance_s 0: no spare
    spares.release()
    spares.settle(120)
    assert spares.count() == 0 and _frozen(second) == []


def test_a_spare_nobody_takes_is_killed_when_its_time_is_up(target: str) -> None:
    first = _serve_then_discard(target, [], keep_s=2)
    (spare,) = _frozen(first)
    spare.wait(timeout=30)  # the timer kills it (SIGKILL) 2 s after it was up, then removes its datadir
    deadline = time.monotonic() + 15
    while Path(first._host("data")).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert spares.count() == 0
    assert not Path(first._host("data")).exists()


def test_settings_refuse_a_negative_or_huge_keep_time() -> None:
    for bad in (-1, 86400):
        with pytest.raises(ValueError, match="spare_instance_s"):
            Settings.model_validate({"spare_instance_s": bad})


def test_a_spare_killed_by_someone_else_is_not_taken(target: str) -> None:
    first = _serve_then_discard(target, ["max-connections=77"], keep_s=60)
    (spare,) = _frozen(first)
    spare.kill()  # an operator, the OOM killer: our child, not reaped yet (a zombie, or threads exiting)
    second = _make(target, 0)
    second.start(["max-connections=77"])  # the same options: it would have been taken
    assert second.pid() != spare.pid
    assert _query(second, "SELECT @@max_connections") == [(77,)]
    second.discard()
