"""One verdict shape: stored as one typed value validated on read, flattened in one spelling, printed in
one format (results/stats/verdicts.py `columns`, `text`; db.ModelJSON)."""

import pytest
from pydantic import ValidationError

from upgradelab.db import ModelJSON
from upgradelab.results.stats import verdicts
from upgradelab.results.stats.verdicts import VERDICT_COLUMNS
from upgradelab.results.store.summary_models import VariantSummary

SLOWER = verdicts.read(verdicts.Interval(1.2345, 1.1, 1.37, 10, "paired rounds"))


def test_a_verdict_flattens_to_the_ratio_spelling_and_nothing_but_its_fields() -> None:
    assert SLOWER is not None
    flat = verdicts.columns(SLOWER)
    assert list(flat) == list(VERDICT_COLUMNS)
    assert (flat["ratio"], flat["ratio_low"], flat["ratio_high"], flat["ratio_rounds"]) == (
        1.2345,
        1.1,
        1.37,
        10,
    )
    assert flat["verdict"] == SLOWER.verdict == "regression" and flat["mde"] == SLOWER.mde


def test_no_verdict_flattens_to_empty_columns_and_a_prefix_names_a_second_one() -> None:
    assert verdicts.columns(None) == dict.fromkeys(VERDICT_COLUMNS)
    floor = verdicts.columns(SLOWER, "aa_", ("ratio", "ratio_low", "ratio_high"))
    assert floor == {"aa_ratio": 1.2345, "aa_ratio_low": 1.1, "aa_ratio_high": 1.37}


def test_a_key_outside_the_one_spelling_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match="'low'"):
        verdicts.columns(SLOWER, keys=("low",))


def test_the_text_is_the_ratio_and_its_interval_in_two_decimals() -> None:
    assert verdicts.text(SLOWER) == "1.23x [1.10, 1.37]"
    assert verdicts.text(None) == "-"


def test_a_stored_verdict_reads_back_typed_and_a_broken_one_fails_naming_the_field() -> None:
    column = VariantSummary.__table__.c.verdict_value.type
    assert isinstance(column, ModelJSON)
    assert SLOWER is not None
    stored = column.process_bind_param(SLOWER, None)
    assert stored == SLOWER.model_dump(mode="json")  # the JSON rows written before read back the same
    assert column.process_result_value(stored, None) == SLOWER
    with pytest.raises(ValidationError, match="verdict"):
        column.process_result_value({**stored, "verdict": "worse"}, None)
