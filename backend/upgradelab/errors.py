"""HTTP errors in FastAPI's own 422 shape, so clients read every field error the same way.

FastAPI is imported where an error is made, not at import: the services that raise these are on the
Celery worker's import path too, and FastAPI costs each worker start ~0.4 CPU-s (issue 31)."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import HTTPException, Request
    from fastapi.responses import JSONResponse

MESSAGE_CHARS = 500
LOC_CHARS = 80


def field_error(loc: list[str | int], message: str) -> "HTTPException":
    """422 whose detail names the field: [{"loc": ["body", "variants", 0, "target"], "msg": ...}]."""
    from fastapi import HTTPException

    return HTTPException(422, [{"loc": loc, "msg": message, "type": "value_error"}])


def not_found(what: str, key: object) -> "HTTPException":
    """404 naming the missing resource."""
    from fastapi import HTTPException, status

    return HTTPException(status.HTTP_404_NOT_FOUND, f"{what} {key} not found")


async def validation_error(request: "Request", error: Exception) -> "JSONResponse":
    """The app's RequestValidationError handler: FastAPI's 422 shape ({"detail": [{"type", "loc",
    "msg"}]}) without `input` and `ctx`, which echo what was sent (a password, 10,000 characters of
    an option name), and with each `msg` cut at 500 and each `loc` part at 80 characters."""
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse

    assert isinstance(error, RequestValidationError)
    detail = [_safe(one) for one in error.errors()]
    return JSONResponse(status_code=422, content={"detail": detail})


# The ids the database's integer primary keys hold (PostgreSQL's integer is 4 bytes; SQLite's 8).
_INT4 = range(-(2**31), 2**31)


async def id_out_of_range(request: "Request", error: Exception) -> "JSONResponse":
    """The app's OverflowError and DataError handler: an id the database's integer type cannot hold
    names no row, so 404, never 500. SQLite's driver raises OverflowError ("Python int too large to
    convert to SQLite INTEGER") binding 2^63 and up; PostgreSQL answers SQLSTATE 22003 ("integer out of
    range") for 2^31 and up, a DataError, taken as this only when a path or query parameter is such an
    id (an id in a JSON body past 2^31 stays a 500 there). Any other OverflowError or DataError stays a
    500."""
    from fastapi.responses import JSONResponse

    if isinstance(error, OverflowError):
        out_of_range = "too large to convert" in str(error)
    else:
        out_of_range = getattr(getattr(error, "orig", None), "sqlstate", None) == "22003" and any(
            _outside_int4(value) for value in [*request.path_params.values(), *request.query_params.values()]
        )
    if not out_of_range:
        return JSONResponse(status_code=500, content={"detail": "Internal Server Error"})
    return JSONResponse(
        status_code=404, content={"detail": "not found: an id outside the database's integer range"}
    )


def _outside_int4(value: object) -> bool:
    try:
        return int(str(value)) not in _INT4
    except ValueError:
        return False


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
