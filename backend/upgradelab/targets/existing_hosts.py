"""Which hosts an `existing` target may point at: loopback, plus the lab's allowlist.

The worker connects wherever an existing target says, so an admin-typed host could reach any server
on the worker's network. Only loopback is allowed unless UPGRADELAB_EXISTING_HOSTS lists the host:
by name (compared case-insensitively, never resolved: DNS answers change) or by CIDR (for hosts
given as IP addresses).
"""

import ipaddress

SETTING = "UPGRADELAB_EXISTING_HOSTS"
_LOOPBACK_NAMES = frozenset({"localhost"})
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-")


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def parse_allowlist(raw: str) -> tuple[set[str], list[ipaddress.IPv4Network | ipaddress.IPv6Network]]:
    """`"db.internal, 10.0.0.0/8"` -> ({"db.internal"}, [10.0.0.0/8]). Raises ValueError naming the
    setting for an entry that is neither a host name nor a CIDR."""
    names: set[str] = set()
    networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    for entry in (part.strip().lower() for part in raw.split(",")):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
            continue
        except ValueError:
            pass
        if not set(entry) <= _NAME_CHARS or entry.startswith(("-", ".")):
            raise ValueError(f"{SETTING}: {entry!r} is neither a host name nor a CIDR")
        names.add(entry)
    return names, networks


def host_refusal(host: str, allowlist: str) -> str | None:
    """Why an existing target may not connect to `host` (None when it may).

    Loopback (127.0.0.0/8, ::1, localhost) is always allowed; other hosts must be listed in
    `allowlist` (the value of UPGRADELAB_EXISTING_HOSTS)."""
    lowered = host.strip().lower()
    if not lowered or not (set(lowered) <= _NAME_CHARS or _address(lowered) is not None):
        return "a host name or IP address (letters, digits, . - or an IPv6 address)"
    address = _address(lowered)
    if lowered in _LOOPBACK_NAMES or (address is not None and address.is_loopback):
        return None
    names, networks = parse_allowlist(allowlist)
    if address is not None and any(address in network for network in networks):
        return None
    if lowered in names:
        return None
    return f"{host} is not loopback and not listed in {SETTING} (names or CIDRs, comma-separated)"
