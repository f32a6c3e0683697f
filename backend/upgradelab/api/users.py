"""/api/auth (login, logout, me) and /api/users (admin)."""

from functools import lru_cache

from fastapi import APIRouter, Depends, HTTPException, Request, Response, status

from upgradelab.db import SessionDep
from upgradelab.settings import get_settings
from upgradelab.users import service
from upgradelab.users.auth import COOKIE, CurrentUser, authorize, request_token
from upgradelab.users.schemas import Login, LoginResult, UserCreate, UserRead
from upgradelab.users.sign_in import SignInLimited, SignInLimits

auth_router = APIRouter(prefix="/api/auth", tags=["auth"])
users_router = APIRouter(prefix="/api/users", tags=["users"], dependencies=[Depends(authorize)])


@lru_cache
def _limits() -> SignInLimits:
    return SignInLimits(get_settings())


@auth_router.post("/login", response_model=LoginResult)
async def login(body: Login, request: Request, response: Response, session: SessionDep) -> LoginResult:
    """Check the password; returns a bearer token and sets it as the HttpOnly session cookie. 401 if
    wrong; 429 with Retry-After after too many failed sign-ins of the name or from the address
    (users/sign_in.py: UPGRADELAB_SIGN_IN_USER_LIMIT, _ADDRESS_LIMIT), the right password too."""
    address = request.client.host if request.client else "unknown"
    try:
        await _limits().check(body.username, address)
    except SignInLimited as limited:
        retry = {"Retry-After": str(limited.retry_after_s)}
        raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS, str(limited), headers=retry) from limited
    user = await service.authenticate(session, body.username, body.password)
    if user is None:
        await _limits().failed(body.username, address)
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "wrong username or password")
    token = await service.issue_token(session, user)
    response.set_cookie(COOKIE, token, httponly=True, samesite="lax", max_age=30 * 24 * 3600)
    return LoginResult(token=token, user=UserRead.model_validate(user))


@auth_router.post("/logout", status_code=status.HTTP_204_NO_CONTENT)
async def logout(request: Request, response: Response, session: SessionDep) -> None:
    """Revoke the current token and clear the cookie."""
    token = request_token(request)
    if token:
        await service.revoke_token(session, token)
    response.delete_cookie(COOKIE)


@auth_router.get("/me", response_model=UserRead)
async def me(user: CurrentUser) -> UserRead:
    """The signed-in user; 401 otherwise."""
    return UserRead.model_validate(user)


@users_router.get("", response_model=list[UserRead])
async def list_users(session: SessionDep) -> list[UserRead]:
    """Every user (admin)."""
    return [UserRead.model_validate(u) for u in await service.list_users(session)]


@users_router.post("", response_model=UserRead, status_code=status.HTTP_201_CREATED)
async def create_user(body: UserCreate, session: SessionDep) -> UserRead:
    """Create a user with a role (admin); 422 on username when taken."""
    return UserRead.model_validate(
        await service.create_user(session, body.username, body.password, body.role)
    )
