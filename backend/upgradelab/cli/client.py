"""What every CLI command that talks to the API shares: the token option, the default base URL,
the auth header and a readable error from a refused response."""

from typing import Annotated

import httpx
import typer

from upgradelab.settings import get_settings

TokenOption = Annotated[
    str | None,
    typer.Option(
        envvar="UPGRADELAB_TOKEN", help="API token (from `upgradelab login`); env UPGRADELAB_TOKEN."
    ),
]
ApiOption = Annotated[str | None, typer.Option(help="API base URL; default from settings.")]


def default_api() -> str:
    """The API's base URL from settings: `http://<api_host>:<api_port>`, no trailing slash."""
    settings = get_settings()
    return f"http://{settings.api_host}:{settings.api_port}"


def auth_headers(token: str | None) -> dict[str, str]:
    """The `Authorization: Bearer <token>` header, or none without a token."""
    return {"Authorization": f"Bearer {token}"} if token else {}


def error_text(response: httpx.Response) -> str:
    """A refused response's `detail` as one line: validation errors as `loc.path: message; ...`,
    else the detail string, else the raw body when it is not JSON."""
    try:
        detail = response.json().get("detail")
    except ValueError:
        return response.text
    if isinstance(detail, list):
        return "; ".join(
            f"{'.'.join(str(p) for p in item.get('loc', []))}: {item.get('msg')}" for item in detail
        )
    return str(detail)
