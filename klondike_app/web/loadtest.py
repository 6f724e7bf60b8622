"""Load test of the browser game's server (a benchmark, not a test: it reports, it asserts nothing).

    python -m klondike_app.web.loadtest --players 50 --actions 200

Starts ``klondike play`` in a separate process on a free localhost port with a fresh database,
lets ``--players`` simulated players play at once (each: a new deal, then ``--actions`` random
legal actions, one request after another as a person would), and reports requests per second,
p50/p99 latency and errors. Then it checks every game twice: the server's view equals the
last view its player received, and the round stored in the database replays (with
``Game``) to the same position as the player's own list of actions. Lost or corrupted games
are counted.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from klondike_app.web.serve import free_port


async def play(client, base: str, player: int, actions: int, latencies: list, errors: list) -> dict:
    rng = random.Random(player)

    async def request(method: str, path: str, body=None):
        started = time.perf_counter()
        response = await client.request(method, base + path, json=body)
        latencies.append(time.perf_counter() - started)
        if response.status_code >= 400:
            errors.append(f"player {player}: {method} {path} -> {response.status_code} {response.text[:100]}")
            return None
        return response.json()

    view = await request("POST", "/api/games", {"deal": 1000 + player})
    played: list[int] = []
    for _ in range(actions):
        if view is None or view["status"] != "playing" or not view["legal"]:
            break
        move = rng.choice(view["legal"])
        answer = await request("POST", f"/api/games/{view['id']}/actions", {"action": move["action"]})
        if answer is not None:
            view = answer
            played.append(move["action"])
    return {"id": view["id"] if view else None, "deal": 1000 + player, "actions": played, "view": view}


async def run_players(base: str, players: int, actions: int):
    import httpx

    latencies: list[float] = []
    errors: list[str] = []
    limits = httpx.Limits(max_connections=players, max_keepalive_connections=players)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        started = time.perf_counter()
        games = await asyncio.gather(*(play(client, base, p, actions, latencies, errors) for p in range(players)))
        elapsed = time.perf_counter() - started
        lost = []
        for game in games:
            response = await client.get(f"{base}/api/games/{game['id']}")
            if response.status_code != 200 or response.json() != game["view"]:
                lost.append(game["id"])
    return games, latencies, errors, elapsed, lost


def stored_games_agree(db: Path, games: list[dict]) -> list[str]:
    """Ids of games whose stored round does not replay to the player's position."""
    from klondike_app.web.rounds import replay
    from klondike_app.web.store import Store
    from klondike_env import Game

    store = Store(db)
    corrupted = []
    for game in games:
        record = store.load_round(game["id"]) if game["id"] else None
        if record is None:
            corrupted.append(str(game["id"]))
            continue
        expected = Game.new(game["deal"])
        for action in game["actions"]:
            expected.step(action)
        live = replay(record)
        if live.actions != game["actions"] or live.game != expected:
            corrupted.append(game["id"])
    store.close()
    return corrupted


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m klondike_app.web.loadtest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=50, help="simulated players at once (default 50)")
    parser.add_argument("--actions", type=int, default=200, help="actions per player (default 200)")
    args = parser.parse_args(argv)
    if args.players < 1 or args.actions < 1:
        parser.error("--players and --actions must be at least 1")
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "load.sqlite3"
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "klondike_app", "play", "--no-open", "--port", str(port),
                                   "--db", str(db)], stdout=subprocess.PIPE, text=True)
        try:
            server.stdout.readline()  # the server's address line: it is listening
            base = f"http://127.0.0.1:{port}"
            games, latencies, errors, elapsed, lost = asyncio.run(run_players(base, args.players, args.actions))
        finally:
            server.terminate()
            server.wait(timeout=30)
        corrupted = stored_games_agree(db, games)
    actions = sum(len(game["actions"]) for game in games)
    print(f"players {args.players} x up to {args.actions} actions: {actions} actions played, {len(latencies)} requests "
          f"in {elapsed:.1f} s")
    print(f"requests/s {len(latencies) / elapsed:.0f}   latency p50 {1000 * percentile(latencies, 0.5):.1f} ms   "
          f"p99 {1000 * percentile(latencies, 0.99):.1f} ms")
    print(f"errors {len(errors)}   games lost {len(lost)}   games corrupted {len(corrupted)}")
    for line in (errors + lost + corrupted)[:10]:
        print("  ", line)
    return 0 if not (errors or lost or corrupted) else 1


if __name__ == "__main__":
    raise SystemExit(main())
