"""PyMySQL held to a target's authentication policy (targets/client_auth.py, issue 44 item 1).

PyMySQL answers whatever authentication plugin the server names: an auth switch to
`mysql_clear_password` gets the password as it is (Connection._process_auth), whatever the
connection. `GuardedConnection` checks the plugin first, in the two places PyMySQL acts on one:
the greeting's (before the first answer; a plugin the target does not allow is answered as an
unknown one, with nothing derived from the password, so only a switch can go on) and every auth
switch (refused with the target's and the plugin's names: OperationalError 2059, as MySQL's own
client says "cannot be loaded"). TLS counts as verified only when the connection was wrapped with
a CA to verify against (Endpoint.connect passes ssl_ca with verification on).
"""

from typing import TYPE_CHECKING, Any

import pymysql
from pymysql.connections import Connection

from upgradelab.targets.client_auth import AuthPolicy

CR_AUTH_PLUGIN_CANNOT_LOAD = 2059
_UNANSWERED = "upgradelab_refused"  # a plugin name PyMySQL derives nothing from

if TYPE_CHECKING:
    _Connection = Connection[Any]
else:  # pymysql's Connection is generic only in its stubs
    _Connection = Connection


class GuardedConnection(_Connection):
    """A PyMySQL connection that answers only the plugins `policy` allows. Made with
    defer_connect=True; `connect_under(policy, tls_verified)` connects."""

    _policy: AuthPolicy = AuthPolicy()
    _tls_verified = False
    _auth_plugin_name: str

    def connect_under(self, policy: AuthPolicy, tls_verified: bool) -> "GuardedConnection":
        """Connect under `policy`; `tls_verified`: TLS is asked for with a CA and verification on."""
        self._policy, self._tls_verified = policy, tls_verified
        self.connect()
        return self

    def _verified(self) -> bool:
        return bool(self._tls_verified and getattr(self, "_secure", False))

    def _request_authentication(self) -> None:
        greeting = str(self._auth_plugin_name or "")
        if greeting and self._policy.refusal(greeting, self._verified()) is not None:
            self._auth_plugin_name = _UNANSWERED
        super()._request_authentication()  # type: ignore[misc]

    def _process_auth(self, plugin_name: Any, auth_packet: Any, handler: Any = None) -> Any:
        name = plugin_name.decode("ascii", "replace") if isinstance(plugin_name, bytes) else str(plugin_name)
        refusal = self._policy.refusal(name, self._verified())
        if refusal is not None:
            raise pymysql.OperationalError(CR_AUTH_PLUGIN_CANNOT_LOAD, refusal)
        return super()._process_auth(plugin_name, auth_packet, handler)  # type: ignore[misc]
