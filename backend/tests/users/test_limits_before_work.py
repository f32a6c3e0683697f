"""Limits before work (issue 44, item 2): a body is bounded per route and its sender signed in before
any of it is read (api/body_limits.py).

The attacker's requests are written on raw sockets, so the test decides how much of a body is sent and
when: the headers first, then the answer is waited for before a byte of the body goes out. The old API
read (and parsed) the whole body before its 401, so no answer came before the body; here it comes at
once, and the API's resident memory stays where it was while three 200 MB bodies are offered at once.
"""

import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests import ports
from tests.conftest import auth_headers
from tests.hostile_http import BODY, MIB, offer


def _api_pid() -> int:
    """The uvicorn process listening on the session's API port."""
    listing = subprocess.run(
        ["ss", "-ltnpH", f"sport = :{ports.API}"], capture_output=True, text=True, check=True
    ).stdout
    found = re.search(r"pid=(\d+)", listing)
    assert found, listing
    return int(found.group(1))


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def test_anonymous_200_mb_bodies_are_refused_before_they_are_read(api: str) -> None:
    pid = _api_pid()
    before = _rss_mib(pid)
    results: dict[str, tuple[str, int]] = {}
    # (path, chunked, announced length, the answer expected before any of the body is sent): a body
    # within the route's limit is refused for want of a sign-in, one past it for its size
    offers = {
        "100 MB query log": ("/api/replays", False, 100 * MIB, "HTTP/1.1 401"),
        "200 MB chunked query log": ("/api/replays", True, BODY, "HTTP/1.1 401"),
        "200 MB experiment": ("/api/experiments", False, BODY, "HTTP/1.1 413"),
    }

    def send(name: str) -> None:
        path, chunked, length, _ = offers[name]
        results[name] = offer(path, {}, chunked, length)

    threads = [threading.Thread(target=send, args=(name,)) for name in offers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    after = _rss_mib(pid)
    print(f"\nAPI RSS {before:.0f} MiB before, {after:.0f} MiB after")
    assert set(results) == set(offers)
    for name, (answer, sent) in results.items():
        print(f"{name}: {answer.splitlines()[0] if answer else 'no answer'}, {sent / MIB:.0f} MiB taken")
        assert answer.startswith(offers[name][3]), (name, answer)  # before any of the body was sent
        assert sent < 64 * MIB, sent  # the socket's buffers took some; the API read none of it
    assert after - before < 50, f"RSS {before:.0f} -> {after:.0f} MiB"


def test_a_signed_in_body_past_its_routes_limit_is_refused_unread(api: str) -> None:
    answer, _ = offer("/api/experiments", auth_headers(), length=2 * MIB)
    assert answer.startswith("HTTP/1.1 413"), answer
    # the answer names the limit and its setting
    assert "over 1048576 bytes, the limit of POST /api/experiments (UPGRADELAB_BODY_MAX_BYTES)" in answer


def test_a_chunked_body_is_counted_as_it_streams(api: str) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(4):
            yield b" " * (MIB // 2)

    headers = {**auth_headers(), "content-type": "application/json"}
    answer = httpx.post(f"{api}/api/experiments", content=chunks(), headers=headers, timeout=30)
    assert answer.status_code == 413, answer.text
    assert "(UPGRADELAB_BODY_MAX_BYTES)" in answer.json()["detail"]


def test_sign_in_takes_a_small_body_only(api: str) -> None:
    big = {"username": "x" * (32 * 1024), "password": "y"}
    answer = httpx.post(f"{api}/api/auth/login", json=big)
    assert answer.status_code == 413
    assert "UPGRADELAB_BODY_SIGN_IN_MAX_BYTES" in answer.json()["detail"]


def test_the_largest_legitimate_body_fits(api: str) -> None:
    """A 100,000-statement slow log (replay_max_statements, its headers as MySQL writes them) is read:
    the answer is about the replay (no such dataset), never 413."""
    entry = (
        "# Time: 2026-12-06T01:00:00.000000Z\n# User@Host: app[app] @ localhost []  Id:    12\n"
        "# Query_time: 0.000210  Lock_time: 0.000002 Rows_sent: 1  Rows_examined: 1\n"
        "SET timestamp=1796518800;\n"
        "SELECT id, name, price FROM products WHERE id = {} AND status = 'active';\n"
    )
    log = "".join(entry.format(i) for i in range(100_000))
    body = {"dataset": "no-such-dataset", "queries": log, "variants": ["mariadb-10.11"]}
    answer = httpx.post(f"{api}/api/replays", json=body, headers=auth_headers(), timeout=120)
    print(f"\n100,000-statement slow log: {len(log) / MIB:.1f} MiB: {answer.status_code}")
    assert answer.status_code != 413 and answer.status_code < 500, answer.text[:300]
