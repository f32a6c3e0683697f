"""User API shapes. A password hash is never part of a response."""

from pydantic import BaseModel, ConfigDict, Field

from upgradelab.request_model import RequestModel
from upgradelab.users.models import Role


class Login(RequestModel):
    """POST /api/auth/login body."""

    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=256)


class UserRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    username: str
    role: Role


class UserCreate(RequestModel):
    """POST /api/users body (admin only)."""

    username: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.@-]+$")
    password: str = Field(min_length=8, max_length=256)
    role: Role = Role.viewer


class LoginResult(BaseModel):
    """The bearer token (also set as the session cookie) and who it belongs to."""

    token: str
    user: UserRead
