"""Sign-in (issue 44, item 6): failed sign-ins are rate limited per user name (and per address) with
429 and Retry-After, the right password included while the limit is spent; an unknown user costs the
same argon2id verification as a known one (the timing itself: bench/sign_in_timing.py)."""

import uuid

import httpx
import pytest

from tests.own_loop import run_on_own_loop
from upgradelab.db import sync_session
from upgradelab.settings import get_settings
from upgradelab.users import passwords, sign_in
from upgradelab.users.models import Role
from upgradelab.users.service import authenticate, create_user_sync


def test_an_unknown_user_costs_one_argon2id_verification(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[str] = []
    real = passwords.verify_password

    def counted(password_hash: str, password: str) -> bool:
        checked.append(password_hash)
        return real(password_hash, password)

    monkeypatch.setattr(sign_in, "verify_password", counted)

    class Nobody:
        async def scalars(self, _: object) -> "Nobody":
            return self

        def first(self) -> None:
            return None

    assert run_on_own_loop(authenticate(Nobody(), "no-such-user", "guess")) is None  # type: ignore[arg-type]
    assert checked == [sign_in.dummy_hash()] and checked[0].startswith("$argon2id$")
    assert sign_in.dummy_hash() == sign_in.dummy_hash()  # made once per process


def test_failed_sign_ins_of_a_name_are_limited_then_refused_even_with_the_right_password(api: str) -> None:
    name = f"limited-{uuid.uuid4().hex[:8]}"
    with sync_session() as session:
        create_user_sync(session, name, "right-password-1", Role.viewer)
    limit = int(get_settings().sign_in_user_limit.split("/")[0])  # 5 a minute
    for _ in range(limit):
        wrong = httpx.post(f"{api}/api/auth/login", json={"username": name, "password": "wrong"})
        assert wrong.status_code == 401
    refused = httpx.post(f"{api}/api/auth/login", json={"username": name, "password": "right-password-1"})
    assert refused.status_code == 429, refused.text
    assert f"too many failed sign-ins for user {name!r}" in refused.json()["detail"]
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    # another name from the same address still signs in: the address's own limit is higher
    other = f"free-{uuid.uuid4().hex[:8]}"
    with sync_session() as session:
        create_user_sync(session, other, "right-password-2", Role.viewer)
    assert httpx.post(
        f"{api}/api/auth/login", json={"username": other, "password": "right-password-2"}
    ).is_success


def test_the_address_limit_counts_every_name_from_one_address(redis_server: str) -> None:
    settings = get_settings().model_copy(update={"sign_in_address_limit": "3/minute"})
    limits = sign_in.SignInLimits(settings)
    address = f"192.0.2.{uuid.uuid4().int % 250}"  # documentation range: never a real client here

    async def scenario() -> None:
        for i in range(3):
            await limits.check(f"name-{i}", address)
            await limits.failed(f"name-{i}", address)
        with pytest.raises(sign_in.SignInLimited, match=f"from {address}"):
            await limits.check("name-new", address)

    run_on_own_loop(scenario())
