"""HTTP errors in FastAPI's own 422 shape, so clients read every field error the same way."""

from typing import Any

from fastapi import HTTPException, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

MESSAGE_CHARS = 500
LOC_CHARS = 80


def field_error(loc: list[str | int], message: str) -> HTTPException:
    """422 whose detail names the field: [{"loc": ["body", "variants", 0, "target"], "msg": ...}]."""
    return HTTPException(422, [{"loc": loc, "msg": message, "type": "value_error"}])


def not_found(what: str, key: object) -> HTTPException:
    """404 naming the missing resource."""
    return HTTPException(status.HTTP_404_NOT_FOUND, f"{what} {key} not found")


async def validation_error(request: Request, error: Exception) -> JSONResponse:
    """The app's RequestValidationError handler: FastAPI's 422 shape ({"detail": [{"type", "loc",
    "msg"}]}) without `input` and `ctx`, which echo what was sent (a password, 10,000 characters of
    an option name), and with each `msg` cut at 500 and each `loc` part at 80 characters."""
    assert isinstance(error, RequestValidationError)
    detail = [_safe(one) for one in error.errors()]
    return JSONResponse(status_code=422, content={"detail": detail})


async def id_out_of_range(request: Request, error: Exception) -> JSONResponse:
    """The app's OverflowError handler: an id the database's integer type cannot hold (2^63 and up,
    below -2^63: SQLite's driver raises "Python int too large to convert to SQLite INTEGER" binding
    it) names no row, so 404, never 500. Any other OverflowError stays a 500."""
    if "too large to convert" not in str(error):
        return JSONResponse(status_code=500, content={"detail": "Internal Server Error"})
    return JSONResponse(
        status_code=404, content={"detail": "not found: an id outside the database's integer range"}
    )


def _safe(error: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": str(error.get("type", "value_error")),
        "loc": [
            part if isinstance(part, int) else _cut(str(part), LOC_CHARS) for part in error.get("loc", ())
        ],
        "msg": _cut(str(error.get("msg", "")), MESSAGE_CHARS),
    }


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
