"""Which hosts an existing target may name: loopback always, others only by UPGRADELAB_EXISTING_HOSTS."""

import pytest

from upgradelab.targets.existing_hosts import SETTING, host_refusal, parse_allowlist


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost", "LOCALHOST"])
def test_loopback_is_allowed_without_a_setting(host: str) -> None:
    assert host_refusal(host, "") is None


@pytest.mark.parametrize("host", ["10.1.2.3", "db.internal", "169.254.169.254", "0.0.0.0"])
def test_other_hosts_are_refused_naming_the_setting(host: str) -> None:
    refusal = host_refusal(host, "")
    assert refusal is not None and SETTING in refusal and host in refusal


def test_allowlist_by_cidr_and_by_name() -> None:
    allowlist = "staging-db.internal, 10.20.0.0/16"
    assert host_refusal("10.20.5.6", allowlist) is None
    assert host_refusal("Staging-DB.internal", allowlist) is None
    assert host_refusal("10.21.0.1", allowlist) is not None
    # names are never resolved: an address inside no CIDR stays refused even if a listed name points there
    assert host_refusal("other.internal", allowlist) is not None


@pytest.mark.parametrize("host", ["db.internal\n[mysqld]", "a b", "-h", "db;rm", ""])
def test_hosts_that_are_not_names_or_addresses_are_refused(host: str) -> None:
    assert host_refusal(host, "db.internal") is not None


def test_a_bad_allowlist_entry_names_the_setting() -> None:
    with pytest.raises(ValueError, match=SETTING):
        parse_allowlist("db.internal, not a host")
