"""Share tokens stored as their sha256, shown once (issue 44, item 4).

A share token opens a result to anyone without signing in. The metadata database keeps only its
sha256 (`token_digest`, as it does the users' API tokens), so a copy of the database, or its file
read by another local user, opens nothing; the token itself is in the answer that makes the link,
once. A link is looked up by the digest of the token presented.

The read models of a shared job (attribution, fix search, capture, check) say only whether a link is
live (`SharedFlag`, from the stored digest) and never the digest (`ShownOnce`: None whatever the row
holds; the share endpoint sets the new token on its own answer).
"""

import secrets
from typing import Annotated, Any, Protocol, TypeVar

from pydantic import AliasChoices, BeforeValidator, Field

from upgradelab.users.service import token_digest


def new_share_token() -> tuple[str, str]:
    """(a new token: secrets.token_urlsafe(24), 192 random bits; its sha256 hex digest, to store)."""
    token = secrets.token_urlsafe(24)
    return token, token_digest(token)


def _never(_: Any) -> None:
    return None


ShownOnce = Annotated[
    str | None,
    BeforeValidator(_never),
    Field(description="The link's token: in the answer that made it only (stored as its sha256)."),
]
SharedFlag = Annotated[
    bool,
    BeforeValidator(bool),
    Field(
        validation_alias=AliasChoices("shared", "share_token"),
        description="Whether a read-only link is live (its token was shown once, when made).",
    ),
]


class _Shareable(Protocol):
    share_token: str | None


Read = TypeVar("Read", bound=_Shareable)


def shown_once(read: Read, token: str) -> Read:
    """`read` (the shared job's API shape, made after the share was stored) with the new `token` set:
    the one answer that shows it."""
    read.share_token = token
    return read
