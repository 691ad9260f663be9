"""The HTTP API: research as jobs (seed 002's `/run`), run views, events, metrics, the page.

The routes (routes.py) only translate: `Service` (service.py) starts and stops the jobs and
holds the store, the roster of what runs (roster.py), the polled bodies (polled.py) and the
event feeds; errors are ApiError (errors.py); the token and the body cap are the RequestGate
(middleware.py). This module assembles them into one app.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from research import __version__
from research.service.errors import ERRORS, ApiError, error_response
from research.service.middleware import RequestGate
from research.service.routes import job_routes, run_routes, service_routes
from research.service.search import search_router
from research.service.service import Service, ServiceConfig

__all__ = ["ApiError", "Service", "ServiceConfig", "create_app"]


def create_app(config: ServiceConfig) -> FastAPI:
    """The service's app: one `Service`, its error handlers, the RequestGate and the routers."""
    service = Service(config)
    app = FastAPI(
        title="research.py service",
        version=__version__,
        description="Research as jobs over HTTP: each job is one `research` session, run as a "
        "child process in the working directory. Errors are `{error: {type, message, "
        "retryable}}`.",
        lifespan=lifespan(service),
        responses=ERRORS,
        # Swagger UI and ReDoc load their scripts from a CDN: offline they are blank pages,
        # and the service must not reach the network for them. /openapi.json stays.
        docs_url=None,
        redoc_url=None,
    )
    app.state.service = service
    install_error_handlers(app)
    app.add_middleware(RequestGate, token=config.token, body_limit=config.body_limit)
    app.include_router(service_routes(service))
    app.include_router(job_routes(service))
    app.include_router(run_routes(service))
    app.include_router(search_router(service))
    return app


def lifespan(service: Service) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Resume the sessions that were running (when configured), and shut the jobs down."""

    @asynccontextmanager
    async def running(app: FastAPI) -> AsyncIterator[None]:
        if service.config.resume_running:
            resume_all(service)
        if service.watch is not None:
            service.watch.start()
        yield
        if service.watch is not None:
            await service.watch.close()
        await service.feeds.close()
        await service.jobs.shutdown()

    return running


def resume_all(service: Service) -> None:
    """Resume every resumable session; one that cannot be resumed is left as it is."""
    for name in service.roster.resumable():
        try:
            service.resume(name)
        except ApiError:
            continue


def install_error_handlers(app: FastAPI) -> None:
    """Every error leaves as `{error: {type, message, retryable}}`, never a traceback."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> Response:
        return error_response(exc.status, exc.kind, exc.message, exc.retryable)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return validation_error_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        kinds = {404: "not_found", 405: "method_not_allowed"}
        return error_response(
            exc.status_code, kinds.get(exc.status_code, "http_error"), str(exc.detail)
        )

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> Response:
        return error_response(500, "internal_error", f"internal error: {exc!r}", True)


def validation_error_response(exc: RequestValidationError) -> Response:
    """400 for a body that is not JSON, else 422 naming the first invalid field."""
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    message = f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
    if first.get("type") == "json_invalid":
        return error_response(400, "bad_request", f"the body is not valid JSON ({message})")
    return error_response(422, "validation_error", message)
