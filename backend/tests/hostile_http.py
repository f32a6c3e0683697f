"""A request whose body is offered on a raw socket, so a test decides how much of it is sent and when
(issue 44: limits before work; tests/users/test_limits_before_work.py, tests/fuzzing)."""

import socket

from tests import ports

MIB = 1 << 20
BODY = 200 * MIB


def offer(path: str, headers: dict[str, str], chunked: bool = False, length: int = BODY) -> tuple[str, int]:
    """Send a request's headers announcing a body of `length` bytes (or a chunked one of 200 MB),
    wait up to 5 s for the answer before sending any of the body, then offer the body until the API
    closes the connection. (the answer's first bytes, '' when none came before the body; the body
    bytes the socket took)."""
    head = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{ports.API}", "Content-Type: application/json"]
    head += ["Transfer-Encoding: chunked"] if chunked else [f"Content-Length: {length}"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    with socket.create_connection(("127.0.0.1", ports.API), timeout=5) as sock:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        try:
            answer = sock.recv(4096).decode(errors="replace")
        except TimeoutError:
            answer = ""
        sent, chunk = 0, b'{"x": "' + b"a" * (MIB - 7)
        frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n" if chunked else chunk
        sock.settimeout(2)
        try:
            while sent < length:
                sock.sendall(frame)
                sent += len(chunk)
        except OSError:  # closed by the API, or its buffers full and nobody reading
            pass
        return answer, sent
