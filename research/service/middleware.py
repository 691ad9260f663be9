"""The bearer token and the cap on request bodies, as pure ASGI middleware."""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from research.service.errors import error_response

OPEN_PATHS = frozenset({"/healthz"})


class RequestGate:
    """Refuses requests without the token (when one is set) and bodies over the limit."""

    def __init__(self, app: ASGIApp, token: str | None, body_limit: int) -> None:
        self.app, self.token, self.body_limit = app, token, body_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        needs_token = self.token is not None and scope["path"] not in OPEN_PATHS
        if needs_token and not self._authorized(scope):
            response = error_response(
                401,
                "unauthorized",
                "a valid bearer token is required (Authorization: Bearer $RESEARCH_API_TOKEN)",
                headers={"WWW-Authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        if scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)  # no body to cap (and nothing to wrap)
            return
        length = _header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.body_limit):
            response = error_response(
                413, "payload_too_large", f"request bodies are limited to {self.body_limit} bytes"
            )
            await response(scope, receive, send)
            return
        # Read the body here, up to the limit (a chunked one has no Content-Length), so that
        # a body over it is answered 413 before the app parses anything.
        messages = await _read_body(receive, self.body_limit)
        if messages is None:
            response = error_response(
                413, "payload_too_large", f"request bodies are limited to {self.body_limit} bytes"
            )
            await response(scope, receive, send)
            return
        pending = iter(messages)

        async def replay() -> Message:
            return next(pending, None) or await receive()

        await self.app(scope, replay, send)

    def _authorized(self, scope: Scope) -> bool:
        assert self.token is not None
        given = ""
        text = _header(scope, b"authorization")
        if text is not None and text.lower().startswith(b"bearer "):
            given = text[7:].strip().decode("latin-1")
        if not given:  # EventSource and a page link cannot send headers
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = (query.get("token") or [""])[0]
        return hmac.compare_digest(given.encode(), self.token.encode())


async def _read_body(receive: Receive, limit: int) -> list[Message] | None:
    """The request's body messages, or None once they add up to more than `limit` bytes."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":  # the client went away
            return messages
        size += len(message.get("body", b""))
        if size > limit:
            return None
        if not message.get("more_body", False):
            return messages


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None
