"""The replay tests use the datasets tests' shop dump."""

from tests.datasets.conftest import shop_dump

__all__ = ["shop_dump"]
