"""The viewer's JSON API (``klondike watch``, documented in docs/web.md): the deals of one or two
results files, the positions of a game replayed move by move, and the solver's analyses.

A position carries only what the player saw unless ``?reveal=1`` is asked for (see
:mod:`klondike_app.web.replays`). Errors are ``{"error": "..."}`` with 400 (a bad move number or
option) or 404 (no such file or deal), as in :mod:`klondike_app.web.api`.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from klondike_app.web.api import ApiError, answer
from klondike_app.web.replays import Replay, ResultsFile, position_json
from klondike_app.web.watch_analysis import Analyses


def deals_json(files: list[ResultsFile], verdicts: dict[int, str]) -> list[dict]:
    """Every deal of the first file (in its order, then the others' own deals), with each file's
    result and, with two files, ``"only"``: the index of the one file that won it (else null)."""
    order = list(dict.fromkeys(deal for results in files for deal in results.replays))
    deals = []
    for deal in order:
        results = [results.replays[deal].summary() if deal in results.replays else None for results in files]
        winners = [index for index, result in enumerate(results) if result and result["won"]]
        deals.append({"deal": deal, "results": results, "verdict": verdicts.get(deal),
                      "only": winners[0] if len(files) > 1 and len(winners) == 1 else None})
    return deals


def paired_text(files: list[ResultsFile]) -> str | None:
    """The paired table of ``klondike compare`` for two files of the same deals (else None)."""
    if len(files) < 2:
        return None
    from agents.reporting import load_summaries, paired_table

    return paired_table(load_summaries([str(results.path) for results in files]))


def routes(files: list[ResultsFile], analyses: Analyses) -> list[Route]:
    """The viewer's routes over the loaded ``files``."""
    listing = {"files": [results.describe() for results in files], "paired": paired_text(files),
               "deals": deals_json(files, analyses.verdicts)}

    def replay_of(request: Request) -> Replay:
        index, deal = request.path_params["file"], request.path_params["deal"]
        if not 0 <= index < len(files):
            raise ApiError(404, f"no results file {index}: files are 0..{len(files) - 1}")
        replay = files[index].replays.get(deal)
        if replay is None:
            raise ApiError(404, f"deal {deal} is not in {files[index].path.name}")
        return replay

    async def overview(request: Request):
        return answer(listing)

    async def position(request: Request):
        replay = replay_of(request)
        move = request.path_params["move"]
        if move > len(replay.actions):
            raise ApiError(400, f"bad move {move}: deal {replay.deal} has moves 0..{len(replay.actions)}")
        reveal = request.query_params.get("reveal", "0")
        if reveal not in ("0", "1"):
            raise ApiError(400, f"bad reveal {reveal[:10]!r}: allowed values are 0 and 1")
        return answer(position_json(replay, move, reveal == "1"))

    async def losing(request: Request):
        return answer(analyses.losing_move(replay_of(request)))

    async def losing_all(request: Request):
        index = request.path_params["file"]
        if not 0 <= index < len(files):
            raise ApiError(404, f"no results file {index}: files are 0..{len(files) - 1}")
        replays = list(files[index].replays.values())
        if request.method == "POST":
            analyses.analyse_all(replays)
        found = {replay.deal: analyses.losing_move(replay, start=False) for replay in replays}
        return answer({"found": {str(deal): {"move": item["move"], "verdict": item["verdict"]}
                                 for deal, item in found.items() if item["state"] == "done"},
                       "pending": sum(item["state"] in ("running", "queued") for item in found.values())})

    async def worlds(request: Request):
        return answer(analyses.world_shares(replay_of(request), start=request.method == "POST"))

    return [
        Route("/api/watch", overview, methods=["GET"]),
        Route("/api/watch/{file:int}/{deal:int}/moves/{move:int}", position, methods=["GET"]),
        Route("/api/watch/{file:int}/{deal:int}/losing-move", losing, methods=["GET"]),
        Route("/api/watch/{file:int}/{deal:int}/worlds", worlds, methods=["GET", "POST"]),
        Route("/api/watch/{file:int}/losing-moves", losing_all, methods=["GET", "POST"]),
    ]
