"""User verbs: create (sync, for the CLI and tests; async for the API), authenticate, tokens."""

import hashlib
import secrets

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from upgradelab.errors import field_error
from upgradelab.users.models import ApiToken, Role, User
from upgradelab.users.passwords import hash_password
from upgradelab.users.sign_in import verify_or_dummy


def token_digest(token: str) -> str:
    """sha256 hex of a token: what is stored, so a database dump reveals no usable token."""
    return hashlib.sha256(token.encode()).hexdigest()


def create_user_sync(session: Session, username: str, password: str, role: Role) -> User:
    """Store a user (argon2id hash); ValueError if the username is taken."""
    if session.scalars(select(User).where(User.username == username)).first() is not None:
        raise ValueError(f"user {username!r} already exists")
    user = User(username=username, password_hash=hash_password(password), role=role)
    session.add(user)
    session.commit()
    return user


def issue_token_sync(session: Session, user: User, label: str = "cli") -> str:
    """A new random token (secrets.token_urlsafe(32)) for `user`; only its sha256 is stored."""
    token = secrets.token_urlsafe(32)
    session.add(ApiToken(token_sha256=token_digest(token), user_id=user.id, label=label))
    session.commit()
    return token


async def create_user(session: AsyncSession, username: str, password: str, role: Role) -> User:
    """Store a user; 422 on username when taken."""
    if (await session.scalars(select(User).where(User.username == username))).first() is not None:
        raise field_error(["body", "username"], f"user {username!r} already exists")
    user = User(username=username, password_hash=hash_password(password), role=role)
    session.add(user)
    await session.commit()
    return user


async def authenticate(session: AsyncSession, username: str, password: str) -> User | None:
    """The user when the password matches, else None; an unknown name costs one argon2id
    verification as a known one does (users/sign_in.py verify_or_dummy)."""
    user = (await session.scalars(select(User).where(User.username == username))).first()
    return user if verify_or_dummy(user, password) else None


async def issue_token(session: AsyncSession, user: User, label: str = "session") -> str:
    """A new token for `user` (stored as its sha256)."""
    token = secrets.token_urlsafe(32)
    session.add(ApiToken(token_sha256=token_digest(token), user_id=user.id, label=label))
    await session.commit()
    return token


async def user_for_token(session: AsyncSession, token: str) -> User | None:
    """The user owning `token`, or None for an unknown/revoked token."""
    row = (
        await session.scalars(select(ApiToken).where(ApiToken.token_sha256 == token_digest(token)))
    ).first()
    return row.user if row is not None else None


async def revoke_token(session: AsyncSession, token: str) -> None:
    """Forget `token` (logout)."""
    row = (
        await session.scalars(select(ApiToken).where(ApiToken.token_sha256 == token_digest(token)))
    ).first()
    if row is not None:
        await session.delete(row)
        await session.commit()


async def list_users(session: AsyncSession) -> list[User]:
    return list(await session.scalars(select(User).order_by(User.username)))
