"""Users and their API tokens (session cookie or bearer token)."""

import enum
from datetime import datetime

from sqlalchemy import Enum, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from upgradelab.db import Base, utcnow


class Role(enum.StrEnum):
    """viewer browses; operator also creates and runs experiments; admin also manages targets and users."""

    viewer = "viewer"
    operator = "operator"
    admin = "admin"

    @property
    def rank(self) -> int:
        return ROLE_ORDER.index(self)


ROLE_ORDER = [Role.viewer, Role.operator, Role.admin]


class User(Base):
    """Row of `app_user`; password_hash is an argon2id hash (argon2-cffi), never returned."""

    __tablename__ = "app_user"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[Role] = mapped_column(
        Enum(Role, native_enum=False, length=16, values_callable=lambda kind: [m.value for m in kind])
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ApiToken(Base):
    """Row of `api_token`: sha256 of a random token; the token itself is shown once, at login."""

    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("app_user.id", ondelete="CASCADE"), index=True)
    label: Mapped[str] = mapped_column(String(64), default="session")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    user: Mapped[User] = relationship(lazy="joined")
