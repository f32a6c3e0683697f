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


def _default_api() -> str:
    settings = get_settings()
    return f"http://{settings.api_host}:{settings.api_port}"


def _headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _error_text(response: httpx.Response) -> str:
    try:
        detail = response.json().get("detail")
    except ValueError:
        return response.text
    if isinstance(detail, list):
        return "; ".join(
            f"{'.'.join(str(p) for p in item.get('loc', []))}: {item.get('msg')}" for item in detail
        )
    return str(detail)
