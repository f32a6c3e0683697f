"""A small Server-Sent Events reader for tests (httpx streaming response -> events)."""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class Event:
    event: str
    id: str | None
    data: str

    def json(self) -> Any:
        return json.loads(self.data)


def events(response: httpx.Response) -> Iterator[Event]:
    """Dispatched events in order; comments (heartbeats) skipped."""
    name, event_id = "message", None
    data: list[str] = []
    for line in response.iter_lines():
        if line == "":
            if data or event_id is not None:
                yield Event(name, event_id, "\n".join(data))
            name, event_id, data = "message", None, []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "id":
                event_id = value
            elif field == "data":
                data.append(value)


def iteration_keys(received: list[Event]) -> list[tuple[int, int]]:
    """(variant_index, iteration) of every iteration a viewer got: snapshot points, then live events."""
    keys: list[tuple[int, int]] = []
    for one in received:
        if one.event == "snapshot":
            keys.extend((v, i) for v, i, _s in one.json()["points"])
        elif one.event == "iteration":
            body = one.json()
            keys.append((body["variant_index"], body["iteration"]))
    return keys
