"""The JSON API (documented in docs/web.md): rounds, moves, undo, hints, auto finish, giving up,
statistics.

Every answer about a round is its view (:meth:`Rounds.view`), or an error ``{"error": "..."}``
with 400 (malformed request), 404 (unknown game), 409 (not possible in this position: the
engine's reason) or 413 (body too large); an error changes nothing.
"""

from __future__ import annotations

import json

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from klondike_app.web.rounds import BadInput, Refused, Rounds, UnknownRound
from klondike_app.web.table import rules_json

MAX_BODY = 16 * 1024
PLAYER_COOKIE = "klondike_player"
PLAYER_COOKIE_AGE = 10 * 365 * 24 * 3600
RULE_FIELDS = ("draw_count", "max_passes", "empty_column", "foundation_to_tableau")
CREATE_FIELDS = ("deal", "deck", "replay", *RULE_FIELDS)
ACTION_FIELDS = ("action", "from", "to", "card")
STATUS = {BadInput: 400, UnknownRound: 404, Refused: 409}


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def answer(data, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={"Cache-Control": "no-store"})


def error_answer(request: Request, error: Exception) -> JSONResponse:
    if isinstance(error, ApiError):
        return answer({"error": str(error)}, error.status)
    status = next(code for kind, code in STATUS.items() if isinstance(error, kind))
    return answer({"error": str(error)}, status)


async def read_json(request: Request, allowed: tuple[str, ...]) -> dict:
    """The request's JSON object (empty body: ``{}``), at most :data:`MAX_BODY` bytes, with only
    ``allowed`` fields."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise ApiError(413, f"request body too large: at most {MAX_BODY} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ApiError(413, f"request body too large: at most {MAX_BODY} bytes")
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(400, f"malformed JSON body: {str(error)[:80]}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    for key in data:
        if key not in allowed:
            raise ApiError(400, f"unknown field {str(key)[:30]!r}: allowed fields are {', '.join(allowed)}")
    return data


def routes(rounds: Rounds) -> list[Route]:
    """The API's routes over ``rounds``."""

    def player_of(request: Request) -> tuple[str, bool]:
        return rounds.player(request.cookies.get(PLAYER_COOKIE))

    def with_player(response: JSONResponse, player: str, created: bool) -> JSONResponse:
        if created:
            response.set_cookie(PLAYER_COOKIE, player, max_age=PLAYER_COOKIE_AGE, httponly=True, samesite="strict")
        return response

    async def config(request: Request):
        return answer({"rules": rules_json(rounds.default_rules)})

    async def create(request: Request):
        data = await read_json(request, CREATE_FIELDS)
        player, created = player_of(request)
        live = rounds.create(player, deal=data.get("deal"), deck=data.get("deck"), replay_of=data.get("replay"),
                             rules={key: data[key] for key in RULE_FIELDS if key in data})
        return with_player(answer(rounds.view(live), 201), player, created)

    async def show(request: Request):
        return answer(rounds.view(rounds.get(request.path_params["game"])))

    async def act(request: Request):
        data = await read_json(request, ACTION_FIELDS)
        game = request.path_params["game"]
        if "action" in data:
            if any(key in data for key in ("from", "to", "card")):
                raise ApiError(400, "give either an action id or from/to (with an optional card), not both")
            live = rounds.act(game, data["action"])
        elif "from" in data and "to" in data:
            live = rounds.act(game, source=data["from"], dest=data["to"], card=data.get("card"))
        else:
            raise ApiError(400, 'expected {"action": ID} with ID in 0..86, or {"from": PILE, "to": PILE}')
        return answer(rounds.view(live))

    async def check(request: Request):
        data = await read_json(request, ("from", "to", "card"))
        if "from" not in data or "to" not in data:
            raise ApiError(400, 'expected {"from": PILE, "to": PILE} and optionally "card"')
        return answer(rounds.check(request.path_params["game"], source=data["from"], dest=data["to"], card=data.get("card")))

    async def undo(request: Request):
        await read_json(request, ())
        return answer(rounds.view(rounds.undo(request.path_params["game"])))

    async def resign(request: Request):
        await read_json(request, ())
        return answer(rounds.view(rounds.resign(request.path_params["game"])))

    async def hint(request: Request):
        strength = request.query_params.get("strength", "normal")
        if strength not in ("normal", "strong"):
            raise ApiError(400, f"bad strength {strength[:20]!r}: allowed values are normal and strong")
        game = request.path_params["game"]
        if strength == "strong":
            return answer(await run_in_threadpool(rounds.hint, game, True))
        return answer(rounds.hint(game))

    async def finish(request: Request):
        await read_json(request, ())
        live, action = await run_in_threadpool(rounds.finish_step, request.path_params["game"])
        return answer({**rounds.view(live), "played": action})

    async def statistics(request: Request):
        token = request.cookies.get(PLAYER_COOKIE)
        known = bool(token) and rounds.store.player_exists(token)
        return answer({"statistics": rounds.statistics(token) if known else []})

    return [
        Route("/api/config", config, methods=["GET"]),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{game}", show, methods=["GET"]),
        Route("/api/games/{game}/actions", act, methods=["POST"]),
        Route("/api/games/{game}/check", check, methods=["POST"]),
        Route("/api/games/{game}/undo", undo, methods=["POST"]),
        Route("/api/games/{game}/resign", resign, methods=["POST"]),
        Route("/api/games/{game}/hint", hint, methods=["GET"]),
        Route("/api/games/{game}/finish", finish, methods=["POST"]),
        Route("/api/stats", statistics, methods=["GET"]),
    ]


EXCEPTION_HANDLERS = {kind: error_answer for kind in (ApiError, BadInput, Refused, UnknownRound)}
