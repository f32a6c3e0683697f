"""Every request body refuses fields it does not know (issue 30: an attribution request with an extra
field was accepted and started a real attribution): the schema says so (additionalProperties false,
for the body and every object nested in it, so a new schema cannot slip through without
upgradelab.request_model.RequestModel), and the API answers 422 naming the field."""

import copy
from typing import Any

import httpx
import pytest

from upgradelab.main import app

OPENAPI: dict[str, Any] = app.openapi()
SCHEMAS: dict[str, Any] = OPENAPI["components"]["schemas"]


def _request_bodies() -> dict[str, str]:
    """ "METHOD path" -> the component its JSON request body is."""
    bodies = {}
    for path, operations in OPENAPI["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                bodies[f"{method.upper()} {path}"] = content["application/json"]["schema"]["$ref"]
    return {key: ref.rsplit("/", 1)[1] for key, ref in bodies.items()}


def _nested(schema: dict[str, Any]) -> set[str]:
    """The components a schema points at, through properties, anyOf/oneOf/allOf, items and maps."""
    found = {schema["$ref"].rsplit("/", 1)[1]} if "$ref" in schema else set()
    for key in ("anyOf", "oneOf", "allOf"):
        for inner in schema.get(key, []):
            found |= _nested(inner)
    for inner in [*schema.get("properties", {}).values(), *([schema["items"]] if "items" in schema else [])]:
        found |= _nested(inner)
    if isinstance(schema.get("additionalProperties"), dict):
        found |= _nested(schema["additionalProperties"])
    return found


def _reachable(names: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = set(names)
    while todo:
        name = todo.pop()
        seen.add(name)
        todo |= _nested(SCHEMAS[name]) - seen
    return seen


BODIES = _request_bodies()


def test_the_walk_finds_every_json_request_body() -> None:
    """The walk below is only as good as what it finds: the bodies known today are all in it."""
    assert {
        "POST /api/experiments": "ExperimentCreate",
        "POST /api/replays": "ReplayCreate",
        "POST /api/attributions": "AttributionCreate",
        "POST /api/shares": "ShareCreate",
        "PATCH /api/runs/{run_id}": "RunUpdate",
    }.items() <= BODIES.items()
    assert {"VariantSpec", "ComparisonQuery"} <= _reachable(set(BODIES.values()))


def test_every_request_body_and_every_object_in_it_forbids_unknown_fields() -> None:
    objects = {name for name in _reachable(set(BODIES.values())) if SCHEMAS[name].get("type") == "object"}
    allowing = sorted(name for name in objects if SCHEMAS[name].get("additionalProperties") is not False)
    assert allowing == [], f"request schemas accepting unknown fields (base them on RequestModel): {allowing}"


EXPERIMENT = {"workload": "insert-truncate", "iterations": 1, "variants": [{"target": "mariadb-10.11"}]}
# A valid body per endpoint (so the unknown field is the one error), and where the unknown field goes.
CASES: list[tuple[str, str, dict[str, Any], list[str | int]]] = [
    ("POST", "/api/experiments", EXPERIMENT, []),
    ("POST", "/api/experiments", EXPERIMENT, ["variants", 0]),
    ("POST", "/api/replays", {"dataset": "none", "queries": "SELECT 1;", "variants": ["mariadb-10.11"]}, []),
    ("POST", "/api/attributions", {"run_id": 1, "variant": "b"}, []),
    ("POST", "/api/shares", {"kind": "run", "run_id": 1}, []),
    ("POST", "/api/shares", {"kind": "comparison", "comparison": {"runs": [1]}}, ["comparison"]),
    ("PATCH", "/api/runs/1", {"name": "renamed"}, []),
    ("POST", "/api/targets", {"name": "never-made", "flavor": "mysql", "provisioner": "local"}, []),
    ("POST", "/api/targets/mariadb-10.11/capabilities", {}, []),
    ("POST", "/api/datasets/none/from-path", {"path": "/nowhere/dump.sql"}, []),
    ("POST", "/api/users", {"username": "never-made", "password": "long-enough"}, []),
    ("POST", "/api/auth/login", {"username": "nobody", "password": "nothing"}, []),
]


def _with_unknown(body: dict[str, Any], where: list[str | int]) -> dict[str, Any]:
    sent = copy.deepcopy(body)
    inner: Any = sent
    for step in where:
        inner = inner[step]
    inner["surprise"] = 1
    return sent


@pytest.mark.parametrize(
    ("method", "path", "body", "where"),
    CASES,
    ids=[f"{method} {path} {'.'.join(map(str, where)) or 'body'}" for method, path, _, where in CASES],
)
def test_an_unknown_field_is_refused_with_a_422_naming_it(
    client: httpx.Client, method: str, path: str, body: dict[str, Any], where: list[str | int]
) -> None:
    response = client.request(method, path, json=_with_unknown(body, where))
    assert response.status_code == 422, response.text
    refused = {"type": "extra_forbidden", "loc": ["body", *where, "surprise"]}
    assert response.json()["detail"] == [{**refused, "msg": "Extra inputs are not permitted"}]
