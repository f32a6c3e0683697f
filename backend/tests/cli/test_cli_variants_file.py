"""`upgradelab replay --variants-file`: a JSON or YAML list of full variant specs (or TARGET[:PRESET]
strings), read into the API's request shape with scalars spelled as the server reads them."""

from pathlib import Path
from typing import Any

import pytest
import typer

from upgradelab.cli.variants import variants_from_file
from upgradelab.replay.schemas import ReplayCreate

YAML = """
variants:
  - mariadb-10.11
  - target: mariadb-11.8
    name: 11.8 with our my.cnf
    options: {innodb_buffer_pool_size: 256M, skip-log-bin: null, max_connections: 77}
    set_global: {innodb_flush_log_at_trx_commit: 2, innodb_stats_persistent: OFF}
    set_session: {optimizer_switch: "index_merge=off", div_precision_increment: 7}
"""


def test_a_yaml_file_gives_specs_with_numbers_and_switches_spelled_for_the_server(tmp_path: Path) -> None:
    path = tmp_path / "variants.yaml"
    path.write_text(YAML)
    variants = variants_from_file(path)
    assert variants == [
        "mariadb-10.11",
        {
            "target": "mariadb-11.8",
            "name": "11.8 with our my.cnf",
            "options": {"innodb_buffer_pool_size": "256M", "skip-log-bin": None, "max_connections": "77"},
            # YAML 1.1 reads OFF as false: sent back as OFF
            "set_global": {"innodb_flush_log_at_trx_commit": "2", "innodb_stats_persistent": "OFF"},
            "set_session": {"optimizer_switch": "index_merge=off", "div_precision_increment": "7"},
        },
    ]
    body = ReplayCreate.model_validate({"dataset": "d", "queries": "SELECT 1;", "variants": variants})
    assert [v.name for v in body.variants] == ["mariadb-10.11", "11.8 with our my.cnf"]


def test_a_json_file_may_be_the_bare_list(tmp_path: Path) -> None:
    path = tmp_path / "variants.json"
    path.write_text(
        '["mysql-9.7:skip-log-bin", {"target": "mysql-9.7", "set_session": {"sort_buffer_size": 1048576}}]'
    )
    assert variants_from_file(path) == [
        "mysql-9.7:skip-log-bin",
        {"target": "mysql-9.7", "set_session": {"sort_buffer_size": "1048576"}},
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[]", "non-empty list"),
        ('{"variant": ["x"]}', "non-empty list"),
        ('["x", 3]', "variant 1 is int"),
        ("[x", "variants.json"),
    ],
)
def test_a_file_that_lists_no_variants_is_refused_naming_it(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "variants.json"
    path.write_text(text)
    with pytest.raises(typer.BadParameter, match=said):
        variants_from_file(path)


def test_the_text_report_says_what_each_variant_set() -> None:
    from upgradelab.cli.replay import settings_lines
    from upgradelab.replay.report import ReplayReport

    server: dict[str, Any] = {"version": "10.11.9-MariaDB", "loaded": None, "tables": []}
    report = ReplayReport.model_validate(
        {
            "baseline": "base",
            "variants": [
                {"name": "base", **server, "settings": {"options": [], "set_global": {}, "set_session": {}}},
                {"name": "old report", **server},
                {
                    "name": "tuned",
                    **server,
                    "settings": {
                        "options": ["max-connections=77", "skip-log-bin"],
                        "set_global": {"max_connect_errors": "4242"},
                        "set_session": {"div_precision_increment": "7"},
                        "instance": [],
                    },
                },
            ],
            "groups": {},
            "exit_bits": 0,
            "statements": 0,
            "fingerprints": [],
        }
    )
    assert settings_lines(report) == [
        "tuned: options max-connections=77, skip-log-bin; SET GLOBAL max_connect_errors=4242; "
        "SET SESSION div_precision_increment=7"
    ]
