"""No delete removes results as a side effect (issue 24).

Result tables are derived from the metadata: the rows a measurement produced (`run`, `replay_run`)
and, transitively, every table with a foreign key to a result (iterations, samples, probes,
summaries, digests, series ...; a share link, job_share, names its job by kind and id, no key). A
removal spreads through foreign keys declared ON DELETE CASCADE (and ORM relationships with a delete
cascade). Every way the code removes a row of the metadata database is enumerated: the API's DELETE
routes (from the app's OpenAPI paths, each mapped to the table it acts on) and every
`session.delete(...)` / `delete(Model)` in the package (found in the source; `delete(Model)` names
its table itself). From none of those tables may a cascade reach a result table.

A new DELETE route or a new row delete fails here until it says what it deletes; a new CASCADE
towards a result table fails when one of those tables reaches it.
"""

import ast
from pathlib import Path

import pytest
from sqlalchemy import Table
from sqlalchemy.orm import RelationshipDirection

import upgradelab
from upgradelab.main import create_app
from upgradelab.models import Base

RESULT_ROOTS = {"run", "replay_run"}  # what a measurement is; everything hanging off them is too
# The table each DELETE route acts on (the service it calls; a soft delete names the row's table).
ROUTE_TABLES = {
    "/api/datasets/{name}": "dataset",  # datasets/service.py delete: marks the row deleted
    "/api/shares/{link_id}": "job_share",  # sharing/service.py revoke: marks the link revoked
    "/api/captures/{capture_id}/share": "job_share",  # revoke_job: marks the capture's links revoked
    "/api/captures/{capture_id}/checks/{check_id}/share": "job_share",  # likewise
}
# `session.delete(row)` calls, whose table the source does not name: module.function -> table.
SESSION_DELETES = {
    "upgradelab.users.service.revoke_token": "api_token",  # POST /api/auth/logout
}
# Result tables whose rows are deleted on purpose, and why; their own cascades are still checked.
DELETED_ON_PURPOSE = {
    "job_share": "revoking a link is asking for that link (a soft delete: the row stays, revoked)",
    "variant_summary": "a run's summary, replaced when it is computed again (results/store/summary.py)",
    "run_digest": "a run's digest, replaced when it is computed again (results/store/digests.py)",
    "iteration_series": "a run's packed series, replaced when packed again (results/store/series_store.py)",
    "probe_series": "a run's packed probe columns, replaced when packed again (probes/series.py)",
}
PACKAGE = Path(upgradelab.__file__).parent


def _tables() -> dict[str, Table]:
    return {name: table for name, table in Base.metadata.tables.items()}


def result_tables() -> set[str]:
    """RESULT_ROOTS and every table with a foreign key to a result table, to a fixed point."""
    results = set(RESULT_ROOTS)
    while True:
        more = {
            name
            for name, table in _tables().items()
            if any(fk.column.table.name in results for fk in table.foreign_keys)
        } - results
        if not more:
            return results
        results |= more


def cascade_edges() -> list[tuple[str, str, str]]:
    """(parent, child, how): a delete of a `parent` row removes `child` rows."""
    edges = [
        (fk.column.table.name, name, f"{name}.{fk.parent.name} -> {fk.target_fullname} ON DELETE CASCADE")
        for name, table in _tables().items()
        for fk in table.foreign_keys
        if (fk.ondelete or "").upper() == "CASCADE"
    ]
    for mapper in Base.registry.mappers:
        for relationship in mapper.relationships:
            if relationship.cascade.delete and relationship.direction is RelationshipDirection.ONETOMANY:
                parent, child = mapper.local_table.name, relationship.target.name  # type: ignore[attr-defined]
                edges.append((parent, child, f"{mapper.class_.__name__}.{relationship.key} cascade delete"))
    return edges


def side_effects(table: str) -> dict[str, str]:
    """Tables whose rows a delete of `table` rows removes through cascades: table -> the path."""
    reached: dict[str, str] = {}
    frontier = [(table, "")]
    while frontier:
        parent, path = frontier.pop()
        for source, child, how in cascade_edges():
            if source == parent and child not in reached and child != table:
                reached[child] = f"{path}{how}; "
                frontier.append((child, reached[child]))
    return reached


def _model_tables() -> dict[str, str]:
    return {mapper.class_.__name__: mapper.local_table.name for mapper in Base.registry.mappers}  # type: ignore[attr-defined]


def row_deletes() -> dict[str, set[str]]:
    """Every row delete in the package's source: `module.function` -> the tables it deletes from
    (`delete(Model)`: Model's table; `session.delete(row)`: SESSION_DELETES, else "?")."""
    models = _model_tables()
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            site = f"{module}.{function.name}"
            for call in ast.walk(function):
                if not isinstance(call, ast.Call):
                    continue
                if isinstance(call.func, ast.Name) and call.func.id == "delete" and call.args:
                    model = call.args[0]
                    name = model.id if isinstance(model, ast.Name) else "?"
                    found.setdefault(site, set()).add(models.get(name, "?"))
                elif (
                    isinstance(call.func, ast.Attribute)
                    and call.func.attr == "delete"
                    and isinstance(call.func.value, ast.Name)
                    and "session" in call.func.value.id
                ):
                    found.setdefault(site, set()).add(SESSION_DELETES.get(site, "?"))
    return found


def test_the_result_tables_derived_from_the_metadata_hold_every_kind_of_result() -> None:
    results = result_tables()
    assert {
        "run", "run_variant", "sample", "probe_sample", "variant_summary", "iteration_series",
        "run_digest", "probe_series", "replay_run",
    } <= results  # fmt: skip
    assert not {"dataset", "target", "experiment", "app_user", "api_token"} & results


def test_every_delete_route_says_which_table_it_acts_on() -> None:
    # From the OpenAPI document: every route the app serves (the routers are included lazily, so
    # app.routes does not list them); no DELETE route is left out of the schema.
    paths = create_app().openapi()["paths"]
    routes = {path for path, operations in paths.items() if "delete" in operations}
    assert routes == set(ROUTE_TABLES), f"map each DELETE route to the table it deletes from: {routes}"


def test_every_row_delete_in_the_code_says_which_table_it_deletes_from() -> None:
    unknown = {site: tables for site, tables in row_deletes().items() if "?" in tables}
    assert not unknown, f"say which table these delete from (SESSION_DELETES): {unknown}"
    assert "upgradelab.users.service.revoke_token" in row_deletes()  # the scan finds session.delete


@pytest.mark.parametrize(
    "table",
    sorted(set(ROUTE_TABLES.values()) | {t for tables in row_deletes().values() for t in tables} - {"?"}),
)
def test_no_delete_removes_a_result_as_a_side_effect(table: str) -> None:
    results = result_tables()
    cascades = [how for _, child, how in cascade_edges() if child in results]
    hit = {child: path for child, path in side_effects(table).items() if child in results}
    assert not hit, (
        f"deleting a {table} row would remove results: {hit}\n"
        f"every CASCADE towards a result table: {cascades}"
    )
    if table in results:
        assert table in DELETED_ON_PURPOSE, f"{table} is a result: say why it is deleted (DELETED_ON_PURPOSE)"


def test_the_guard_sees_a_cascade_from_an_input_to_a_result() -> None:
    """The check itself: experiment -> run is a CASCADE, so were experiments deletable, it would fail."""
    assert "run" in side_effects("experiment") and "sample" in side_effects("experiment")
    assert "replay_run" not in side_effects("dataset")
