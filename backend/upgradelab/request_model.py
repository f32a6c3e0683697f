"""The base of every request body the API reads: unknown fields are refused, never ignored.

A field the API does not know is a typo or a probe (issue 30: an attribution request with an extra
field was accepted and started a real attribution); either way the caller is told, with FastAPI's
422 naming it: {"detail": [{"type": "extra_forbidden", "loc": ["body", "<field>"], "msg": "Extra
inputs are not permitted"}]}. tests/contract/test_request_schemas.py fails when a request body's
schema (or one nested in it) allows extra fields, so a new one cannot forget this base.
"""

from pydantic import BaseModel, ConfigDict


class RequestModel(BaseModel):
    """A request body (XCreate, XUpdate, ...): `extra="forbid"`."""

    model_config = ConfigDict(extra="forbid")
