"""A Server-Sent Events client as a browser's EventSource behaves: it reconnects with Last-Event-ID."""

import json
import threading
import time
from typing import Any

import httpx


class RunWatcher(threading.Thread):
    """Follows /api/runs/{id}/events until a final status, reconnecting after any break.

    `points` lists every (variant_index, iteration) received, from the snapshot and from iteration
    events, in arrival order (a duplicate appears twice); `connections` counts the connections made.
    """

    def __init__(self, base_url: str, token: str, run_id: int, give_up_after_s: float = 240) -> None:
        super().__init__(daemon=True)
        self.url = f"{base_url}/api/runs/{run_id}/events"
        self.headers = {"Authorization": f"Bearer {token}"}
        self.points: list[tuple[int, int]] = []
        self.connections = 0
        self.final: str | None = None
        self.last_id: str | None = None
        self.deadline = time.monotonic() + give_up_after_s

    def run(self) -> None:
        while self.final is None and time.monotonic() < self.deadline:
            headers = dict(self.headers)
            if self.last_id is not None:
                headers["Last-Event-ID"] = self.last_id
            try:
                with httpx.stream("GET", self.url, headers=headers, timeout=30) as response:
                    if response.status_code != 200:
                        time.sleep(0.2)
                        continue
                    self.connections += 1
                    self._read(response)
            except httpx.HTTPError:
                time.sleep(0.2)  # the API is restarting: try again, as EventSource does

    def _read(self, response: httpx.Response) -> None:
        event: dict[str, str] = {}
        for line in response.iter_lines():
            if line:
                if not line.startswith(":"):
                    name, _, value = line.partition(":")
                    event[name] = value[1:] if value.startswith(" ") else value
                continue
            if "data" in event:
                self._dispatch(event)
                if self.final is not None:
                    return
            event = {}

    def _dispatch(self, event: dict[str, str]) -> None:
        if "id" in event:
            self.last_id = event["id"]
        data: dict[str, Any] = json.loads(event["data"])
        kind = event.get("event", "message")
        if kind == "snapshot":
            self.points.extend((p[0], p[1]) for p in data["points"])
            if data["run"]["status"] in {"succeeded", "failed", "cancelled"}:
                self.final = data["run"]["status"]
        elif kind == "iteration":
            self.points.append((data["variant_index"], data["iteration"]))
        elif kind == "status" and data.get("status") in {"succeeded", "failed", "cancelled"}:
            self.final = data["status"]
