"""A fake MySQL server that asks every client for its password in cleartext (issue 44, item 1).

It sends a protocol-10 greeting (server version `version`, the default plugin `greeting_plugin`),
reads the client's handshake response, then answers with an auth switch request to
`mysql_clear_password` (or `switch_to`), and records every byte it receives from every connection
until the client closes (or `linger_s` passes), then closes. A client that obeys the switch sends its
password followed by a NUL: `received()` holds it then. Nothing is answered beyond the switch: a
client that sent its password waits, then gives up (or is closed after `linger_s`).
"""

import os
import socket
import struct
import threading
from types import TracebackType

CAPABILITIES = (
    0x00000001  # CLIENT_LONG_PASSWORD
    | 0x00000004  # CLIENT_LONG_FLAG
    | 0x00000008  # CLIENT_CONNECT_WITH_DB
    | 0x00000200  # CLIENT_PROTOCOL_41
    | 0x00002000  # CLIENT_TRANSACTIONS
    | 0x00008000  # CLIENT_SECURE_CONNECTION
    | 0x00010000  # CLIENT_MULTI_STATEMENTS
    | 0x00020000  # CLIENT_MULTI_RESULTS
    | 0x00080000  # CLIENT_PLUGIN_AUTH
    | 0x00200000  # CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
)


def _packet(sequence: int, payload: bytes) -> bytes:
    return struct.pack("<I", len(payload))[:3] + bytes([sequence]) + payload


def greeting(version: str, plugin: str, salt: bytes) -> bytes:
    """A HandshakeV10 payload naming `plugin` with a 20-byte `salt`."""
    return (
        b"\x0a" + version.encode() + b"\0" + struct.pack("<I", 7) + salt[:8] + b"\0"
        + struct.pack("<H", CAPABILITIES & 0xFFFF) + bytes([45]) + struct.pack("<H", 2)
        + struct.pack("<H", CAPABILITIES >> 16) + bytes([21]) + b"\0" * 10 + salt[8:] + b"\0"
        + plugin.encode() + b"\0"
    )  # fmt: skip


class CleartextServer:
    """The fake server on 127.0.0.1:`port` (a context manager: started on enter, stopped on exit)."""

    def __init__(
        self,
        port: int,
        *,
        version: str = "10.11.19-MariaDB",
        greeting_plugin: str = "mysql_native_password",
        switch_to: str = "mysql_clear_password",
        linger_s: float = 3.0,
    ) -> None:
        self.port, self.version = port, version
        self.greeting_plugin, self.switch_to, self.linger_s = greeting_plugin, switch_to, linger_s
        self.connections = 0
        self._received: list[bytes] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", port))
        self._listener.listen(16)
        self._listener.settimeout(0.2)
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> "CleartextServer":
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self._listener.close()

    def received(self) -> bytes:
        """Every byte every client sent, in order of connections."""
        with self._lock:
            return b"".join(self._received)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._talk, args=(client,), daemon=True).start()

    def _talk(self, client: socket.socket) -> None:
        client.settimeout(self.linger_s)
        salt = os.urandom(20).replace(b"\0", b"\1")
        try:
            client.sendall(_packet(0, greeting(self.version, self.greeting_plugin, salt)))
            response = self._read_packet(client)
            if response is None:
                return
            sequence = response[0] + 1
            switch = b"\xfe" + self.switch_to.encode() + b"\0" + salt + b"\0"
            client.sendall(_packet(sequence, switch))
            while self._read_packet(client) is not None:
                pass
        except OSError:
            pass
        finally:
            client.close()

    def _read_packet(self, client: socket.socket) -> bytes | None:
        """(sequence byte + payload) of one packet, recorded; None when the client closed."""
        header = self._read(client, 4)
        if header is None:
            return None
        length = int.from_bytes(header[:3], "little")
        payload = self._read(client, length) if length else b""
        return None if payload is None else header[3:4] + payload

    def _read(self, client: socket.socket, count: int) -> bytes | None:
        data = b""
        while len(data) < count:
            chunk = client.recv(count - len(data))
            if not chunk:
                return None
            with self._lock:
                self._received.append(chunk)
            data += chunk
        return data
