"""A slot's free port taken between its choice and the server's bind (an outgoing connection's
ephemeral port, seen under load as "server exited during start-up"): the start is made again on
another free port (targets/provisioners/local.py, PORT_CLASH_RETRIES). On the lab's MariaDB 10.11."""

import socket
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from upgradelab.db import sync_session
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner, ProvisionError


def _slot(slot: int) -> LocalProvisioner:
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
    app = get_settings().model_copy(update={"spare_instance_s": 0})  # no spare left behind
    return LocalProvisioner("mariadb-10.11-clash", target.flavor, target.settings.stored(), app, slot=slot)


@pytest.fixture
def held_port() -> Iterator[int]:
    """A 127.0.0.1 port somebody else listens on while the test runs."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def test_a_slot_whose_port_was_taken_starts_on_another(database: None, held_port: int) -> None:
    provisioner = _slot(1)
    provisioner.ensure_initialized()  # the template (its own start, once per target) made first
    provisioner.port = held_port  # as if an outgoing connection took the chosen port meanwhile
    try:
        endpoint = provisioner.start([])
        assert endpoint.port != held_port
        connection = endpoint.connect()
        with connection.cursor() as cursor:
            cursor.execute("SELECT @@port")
            row = cursor.fetchone()
        connection.close()
        assert row is not None and int(row[0]) == endpoint.port
    finally:
        provisioner.stop()


def test_slot_0_keeps_the_targets_port_and_says_why_it_failed(database: None, held_port: int) -> None:
    provisioner = _slot(0)
    provisioner.ensure_initialized()
    provisioner.port = held_port  # the target's own port is the user's choice: never moved
    try:
        with pytest.raises(ProvisionError, match="Address already in use"):
            provisioner.start([])
    finally:
        provisioner.stop()
