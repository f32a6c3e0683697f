"""A port where no MySQL server listens is refused within 10 s naming its address (issue 30, finding 6):
PyMySQL waits for a server's greeting with the read timeout, which was none, so an existing target
pointing at Redis, at the API itself or at a listener that says nothing held the API request for
good. Every connection's greeting is now bounded by its connect timeout (Endpoint.connect), and
what follows by a read timeout of its own."""

import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pymysql
import pytest

from tests import ports
from upgradelab.targets.provisioners.base import Endpoint

REFUSED_WITHIN_S = 10.0


def _listener(answer: bytes | None) -> Iterator[int]:
    """A TCP listener on 127.0.0.1 that accepts every connection and sends `answer` then closes it,
    or (None) says nothing and keeps it open; yields its port."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                peer, _ = server.accept()
            except TimeoutError:
                continue
            if answer is None:
                held.append(peer)
            else:
                peer.sendall(answer)
                peer.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for peer in held:
        peer.close()
    server.close()


@pytest.fixture(scope="module")
def silent_port() -> Iterator[int]:
    yield from _listener(None)


@pytest.fixture(scope="module")
def http_port() -> Iterator[int]:
    yield from _listener(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


def test_a_silent_listener_is_refused_after_the_connect_timeout_naming_its_address(silent_port: int) -> None:
    """Even a connection whose statements may run an hour (the default read timeout) waits for the
    greeting only its connect timeout."""
    asked = time.monotonic()
    with pytest.raises(pymysql.OperationalError) as refused:
        Endpoint("127.0.0.1", silent_port, "lab", "secret").connect(timeout_s=2)
    took = time.monotonic() - asked
    assert f"127.0.0.1:{silent_port} did not complete a MySQL handshake within 2 s" in str(refused.value)
    assert 1.5 < took < 5, took


def test_an_answer_that_is_not_a_greeting_is_a_mysql_error_naming_the_address(http_port: int) -> None:
    with pytest.raises(pymysql.OperationalError, match=f"127.0.0.1:{http_port}"):
        Endpoint("127.0.0.1", http_port, "lab", "secret").connect(timeout_s=2)


def _existing(client: httpx.Client, port: int) -> tuple[httpx.Response, float]:
    settings = {"host": "127.0.0.1", "port": port, "user": "lab", "password": "x", "database": "labdb"}
    body = {
        "name": f"not-mysql-{port}-t{ports.SESSION}",
        "flavor": "mysql",
        "provisioner": "existing",
        "settings": settings,
    }
    asked = time.monotonic()
    answer = client.post("/api/targets", json=body)
    return answer, time.monotonic() - asked


@pytest.mark.parametrize("what", ["redis", "the api itself", "a silent listener", "an http answer"])
def test_an_existing_target_at_a_port_that_is_not_mysql_is_refused_within_10_s(
    client: httpx.Client, silent_port: int, http_port: int, what: str
) -> None:
    port = {
        "redis": ports.REDIS,
        "the api itself": ports.API,
        "a silent listener": silent_port,
        "an http answer": http_port,
    }[what]
    answer, took = _existing(client, port)
    print(f"{what}: {answer.status_code} in {took:.1f} s")
    assert answer.status_code in (409, 422), answer.text
    assert f"127.0.0.1:{port}" in answer.text
    assert took < REFUSED_WITHIN_S, took
    assert client.get(f"/api/targets/not-mysql-{port}-t{ports.SESSION}").status_code == 404
