"""Shared test helpers: hand-built positions from explicit decks, and random playouts."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from klondike_env import Game, Rules, core, parse_card


def load_script(name: str):
    """``scripts/<name>.py`` as a module (scripts are not a package), so tests can call its functions."""
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def klondike(*argv) -> int:
    """Run the ``klondike`` command in this process (output to capsys); its exit status."""
    from klondike_app.cli import main

    return main([str(arg) for arg in argv])


def klondike_command(*argv) -> list[str]:
    """The ``klondike`` command line that runs this checkout's code (``-m`` from the repository root)."""
    return [sys.executable, "-m", "klondike_app", *map(str, argv)]


def kill_part_way(command: list[str], csv_path: Path, rows: int, timeout: float = 240, env: dict | None = None) -> None:
    """Run ``command`` (this checkout's code; ``env`` added to the environment) and SIGKILL it
    once ``csv_path`` holds ``rows`` rows below its header, or when it ends or ``timeout``
    passes; then its process group, where the helpers of a local Ray it started can outlive it."""
    root = Path(__file__).resolve().parents[1]
    process = subprocess.Popen(command, cwd=root, env={**os.environ, **(env or {}), "PYTHONPATH": str(root)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if csv_path.is_file() and csv_path.read_bytes().count(b"\n") > rows:
            break
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)  # the driver alone first: a local Ray sees its driver die
    process.wait()
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def deck_position(row: int, col: int) -> int:
    """Index in the deck of the card dealt to depth ``row`` of column ``col`` (docs/contract.md)."""
    return sum(7 - r for r in range(row)) + col - row


def build_deck(columns: dict | None = None, stock=()) -> list[int]:
    """A 52-card deck that deals the chosen cards where asked.

    ``columns`` maps a column to its cards bottom to top; they fill the *top* of
    the column, so the last one is its face-up card (at most ``col + 1`` cards).
    ``stock`` fills the front of the stock, first drawn first. Every other place
    gets the unused cards, in id order.
    """
    deck: list[int | None] = [None] * 52
    for col, cards in (columns or {}).items():
        cards = [parse_card(c) for c in cards]
        assert len(cards) <= col + 1, f"column {col} holds {col + 1} cards at the deal"
        for offset, card in enumerate(cards):
            deck[deck_position(col + 1 - len(cards) + offset, col)] = card
    for i, card in enumerate(stock):
        deck[28 + i] = parse_card(card)
    chosen = [c for c in deck if c is not None]
    assert len(chosen) == len(set(chosen)), "a card is placed twice"
    spare = iter(c for c in range(52) if c not in set(chosen))
    return [c if c is not None else next(spare) for c in deck]


def position(columns: dict | None = None, stock=(), rules: Rules | None = None, **options) -> Game:
    """The opening position of :func:`build_deck` under ``rules`` (or ``Rules(**options)``)."""
    return Game.from_deck(build_deck(columns, stock), rules if rules is not None else Rules(**options))


def _makes_progress(game: Game, action: int) -> bool:
    """A move to a foundation, from the waste, or one that turns a face-down card up."""
    if action == 2 or 3 <= action < 17:
        return True
    if 17 <= action < 59:
        source = (action - 17) // 6
        dest = int(core.column_action_dest(source, (action - 17) % 6))
        down = int(game._state[core.COLUMN_DOWN + source])
        return down > 0 and core.run_start(game._state, game._rules_array, source, dest) == down
    return False


def played(deal: int, moves: int, seed: int, rules: Rules | None = None) -> Game:
    """Deal ``deal`` after ``moves`` uniformly random legal actions (fewer if the game ends)."""
    game = Game.new(deal, rules)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.step(int(rng.choice(game.legal_actions())))
    return game


def random_playout(game: Game, rng: np.random.Generator, max_moves: int):
    """Play random legal actions, yielding each one.

    Progress (cards home, waste cards played, face-down cards uncovered) is
    preferred so games get deep -- empty columns, kings moving, foundations high
    -- instead of cycling the stock; every legal action keeps some chance.
    """
    for _ in range(max_moves):
        legal = game.legal_actions()
        if not legal:
            return
        roll = rng.random()
        progress = [a for a in legal if _makes_progress(game, a)]
        if progress and roll < 0.8:
            choices = progress
        elif roll < 0.9:
            choices = [a for a in legal if a < 59] or legal  # foundation cards come back rarely
        else:
            choices = legal
        action = choices[int(rng.integers(len(choices)))]
        game.step(action)
        yield action


#: every combination of the rule options, for tests that should hold under all of them
ALL_RULES = [
    Rules(draw_count=draw, max_passes=passes, empty_column=empty, foundation_to_tableau=back)
    for draw in (3, 1)
    for passes in (None, 1, 3)
    for empty in ("king", "any")
    for back in (True, False)
]


@pytest.fixture(params=ALL_RULES, ids=lambda rules: f"d{rules.draw_count}-p{rules.max_passes}-"
                f"{rules.empty_column}-{'back' if rules.foundation_to_tableau else 'noback'}")
def any_rules(request) -> Rules:
    return request.param
