"""A dataset's name maps to its default database one to one (issue 30 finding 8): `-` reads as `_`
(`shop-2024` loads into `shop_2024`, the name a query log from the source server uses), so of `x-y`
and `x_y` only one may be live at a time; a name whose database is the server's or the lab's own is
refused. Through the real API."""

from collections.abc import Iterator

import httpx
import pytest

from tests.datasets.conftest import delete_dataset

DUMP = b"CREATE TABLE t (id INT PRIMARY KEY);\n"


@pytest.fixture
def names(client: httpx.Client) -> Iterator[list[str]]:
    made: list[str] = []
    yield made
    for name in made:
        delete_dataset(client, name)


def test_two_names_never_load_into_one_database(client: httpx.Client, names: list[str]) -> None:
    names += ["names-x-y", "names_x_y", "names-x_y"]
    assert client.put("/api/datasets/names-x-y", content=DUMP).status_code == 201
    for other in ("names_x_y", "names-x_y"):
        taken = client.put(f"/api/datasets/{other}", content=DUMP)
        assert taken.status_code == 409, taken.text
        assert taken.json()["detail"] == (
            "name: dataset 'names-x-y' loads into database `names_x_y` already; choose another name"
        )
    databases = {d["name"]: d["database"] for d in client.get("/api/datasets").json()}
    assert databases["names-x-y"] == "names_x_y" and "names_x_y" not in databases
    delete_dataset(client, "names-x-y")
    made = client.put("/api/datasets/names_x_y", content=DUMP)  # free again once the other is deleted
    assert made.status_code == 201 and made.json()["database"] == "names_x_y", made.text


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("mysql", "the server's own"),
        ("sys", "the server's own"),
        ("performance-schema", "the server's own"),
        ("information_schema", "the server's own"),
        ("upgradelab-meta", "the lab's own"),
        ("lab-results", "the lab's own"),
    ],
)
def test_a_name_whose_database_is_reserved_is_refused(client: httpx.Client, name: str, why: str) -> None:
    refused = client.put(f"/api/datasets/{name}", content=DUMP)
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"].startswith(
        f"name: dataset {name!r} would load into `{name.replace('-', '_')}`"
    )
    assert why in refused.json()["detail"]
    assert client.get(f"/api/datasets/{name}").status_code == 404
