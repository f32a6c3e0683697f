"""HTTP errors in FastAPI's own 422 shape, so clients read every field error the same way."""

from fastapi import HTTPException, status


def field_error(loc: list[str | int], message: str) -> HTTPException:
    """422 whose detail names the field: [{"loc": ["body", "variants", 0, "target"], "msg": ...}]."""
    return HTTPException(422, [{"loc": loc, "msg": message, "type": "value_error"}])


def not_found(what: str, key: object) -> HTTPException:
    """404 naming the missing resource."""
    return HTTPException(status.HTTP_404_NOT_FOUND, f"{what} {key} not found")
