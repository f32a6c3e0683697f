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
        answer = _answer(sock)
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


def _answer(sock: socket.socket) -> str:
    """The API's answer read whole (its head, then the body its Content-Length gives: they may come in
    two TCP segments, and one recv took only the head), '' when none came within the socket's 5 s;
    what came, when the answer stops short."""
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            more = sock.recv(4096)
            if not more:
                break
            data += more
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        while len(body) < length:
            more = sock.recv(4096)
            if not more:
                break
            body += more
            data += more
    except TimeoutError:
        pass
    return data.decode(errors="replace")
