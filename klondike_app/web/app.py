"""The web app: pages, their static files and the JSON API, over one storage file.

A page is an HTML file of ``static/`` served at a path (:data:`PAGES`); its scripts and styles
are plain files under ``/static`` (no build step, nothing fetched from elsewhere: the
Content-Security-Policy allows this origin only). Another page is one more entry in
:data:`PAGES` and, for its data, one more list of routes beside :func:`api.routes`.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from klondike_app.web import api
from klondike_app.web.rounds import Rounds
from klondike_app.web.scored import ScoredPlan, ScoredSet
from klondike_app.web.scored import routes as scored_routes
from klondike_app.web.store import Store
from klondike_env.rules import Rules

STATIC = Path(__file__).resolve().parent / "static"
#: URL path -> HTML file under static/
PAGES = {"/": "play.html"}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def page_route(path: str, filename: str) -> Route:
    async def page(request: Request):
        return FileResponse(STATIC / filename, headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"})

    return Route(path, page, methods=["GET"])


async def http_error(request: Request, error: HTTPException):
    """Unknown paths and wrong methods: JSON under /api, plain text elsewhere."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": f"{error.detail}: {request.method} {request.url.path[:80]}"}, error.status_code)
    return PlainTextResponse(str(error.detail), error.status_code)


def create_app(db_path: str | Path, rules: Rules | None = None, clock=time.time,
               scored: ScoredPlan | None = None) -> Starlette:
    """The app over the SQLite file ``db_path``; ``rules``: the rules a new deal gets unless it
    names others; ``clock``: seconds (tests pass a fake one); ``scored``: a person's run on a
    seed set, the only play the server then allows (its results files are opened here: a
    ``ValueError`` in one line when they hold another run)."""
    store = Store(db_path)
    rounds = Rounds(store, rules, clock)
    try:
        scored_set = None if scored is None else ScoredSet(rounds, scored)
    except BaseException:
        store.close()
        raise

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        store.close()

    routes = [
        *(page_route(path, filename) for path, filename in PAGES.items()),
        *api.routes(rounds),
        *scored_routes(scored_set, rounds),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {**api.EXCEPTION_HANDLERS, HTTPException: http_error}
    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
    app.state.rounds = rounds
    app.state.scored = scored_set
    return app


def create_watch_app(files, analyses) -> Starlette:
    """The viewer of ``klondike watch`` over loaded results files (:mod:`klondike_app.web.watch_api`);
    ``analyses``: the solver analyses' runner and store, closed with the app."""
    from klondike_app.web import watch_api

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        analyses.close()

    routes = [
        page_route("/", "watch.html"),
        *watch_api.routes(files, analyses),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {api.ApiError: api.error_answer, HTTPException: http_error}
    return Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
