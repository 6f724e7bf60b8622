"""Score an agent on a fixed set of deals: the benchmark's harness (``klondike evaluate``).

Every deal is played from its opening position until it is won, dead (docs/contract.md), the agent
resigns, or ``max_moves`` actions have been played. Each deal gets its own agent seed,
derived from the run's seed and the deal number, so results do not depend on how deals
are spread over worker processes.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from agents.base import RESIGN, Agent, DealInfo, choose_action
from agents.jobs import Backend, JobStats, run_jobs
from agents.registry import make_agent
from agents.results import (
    CSV_COLUMNS, DEFAULT_MAX_MOVES, GameRecord, ResultsExistError, ResultsFiles, deals_text, parse_moves,
    read_game_rows, read_records, result_stem, run_identity, run_resumable, stored_identity, write_json, write_results,
    write_run_summary,
)
from klondike_env.cards import check_deal
from klondike_env.cli import prepare_output_dir, read_text
from klondike_env.data import seed_set_file, seed_set_names
from klondike_env.data import verdict_file as shipped_verdict_file
from klondike_env.game import Game, IllegalActionError
from klondike_env.rules import Rules

PROJECT_ROOT = Path(__file__).resolve().parents[1]  # the checkout, or site-packages when installed
Z95 = 1.959963984540054  # two-sided 95% normal quantile


class SeedSetError(ValueError):
    """A seed set that names no known set, file or range, or a malformed seed file."""


class AgentError(RuntimeError):
    """The agent broke the protocol (an illegal action, a non-integer action)."""


# --- seed sets -------------------------------------------------------------------
def named_seed_sets() -> list[str]:
    return seed_set_names()


def load_seed_set(spec: str) -> tuple[str, list[int]]:
    """``(name, deals)`` for a named set (``test``), a file of deal numbers, or a range (``1-500``).

    Seed files hold one deal number per line; blank lines and ``#`` comments are ignored.
    """
    spec = str(spec).strip()
    range_match = re.fullmatch(r"(\d+)(?:-(\d+))?", spec)
    if range_match:
        first = int(range_match.group(1))
        last = int(range_match.group(2) or first)
        if last < first:
            raise SeedSetError(f"bad seed range {spec!r}: the end is below the start (write FIRST-LAST)")
        try:
            check_deal(first), check_deal(last)
        except ValueError as error:
            raise SeedSetError(f"bad seed range {spec!r}: {error}") from None
        return spec, list(range(first, last + 1))
    named = seed_set_file(spec)
    path = named if named is not None else Path(spec)
    if not path.is_file():
        raise SeedSetError(
            f"unknown seed set {spec!r}: give a named set ({', '.join(named_seed_sets())}), "
            "a file of deal numbers one per line, or a range such as 1-500"
        )
    try:
        content = read_text(path, "a seed file: one deal number per line")
    except ValueError as error:
        raise SeedSetError(str(error)) from None
    deals = []
    for number, line in enumerate(content.splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            deals.append(check_deal(int(text)))
        except ValueError:
            raise SeedSetError(
                f"malformed seed file {path}: line {number} is {line.strip()!r}, expected one deal number 0 <= n < 2**64"
            ) from None
    if not deals:
        raise SeedSetError(f"malformed seed file {path}: it lists no deal numbers")
    name = spec if named is not None else str(path)
    return name, deals


def deal_seed(run_seed: int, deal: int) -> int:
    """The agent's seed for one deal: a function of the run's seed and the deal only."""
    return int(np.random.SeedSequence([run_seed, deal]).generate_state(1, np.uint64)[0])


# --- playing -----------------------------------------------------------------------
def play_on(agent: Agent, game: Game, max_moves: int = DEFAULT_MAX_MOVES) -> tuple[str, list[int]]:
    """Let ``agent`` play ``game`` from where it stands until the game ends; returns how it
    ended ("won", "dead", "resigned" or "move limit") and the actions played. The agent only
    ever sees :class:`PlayerView`."""
    actions = []
    while not game.is_won and not game.is_dead and game.move_count < max_moves:
        action = choose_action(agent, game)
        if action == RESIGN:
            return "resigned", actions
        try:
            game.step(action)
        except IllegalActionError as error:
            where = f"deal {game.deal}" if game.deal is not None else "a game dealt from a deck"
            raise AgentError(f"agent {agent.label} played an illegal move on {where}: {error}") from None
        actions.append(int(action))
    return ("won" if game.is_won else "dead" if game.is_dead else "move limit"), actions


def play_game(agent: Agent, deal: int, rules: Rules, seed: int, max_moves: int = DEFAULT_MAX_MOVES) -> GameRecord:
    """Play one deal to its end with ``agent`` (see :func:`play_on`)."""
    start, cpu_start = time.perf_counter(), time.process_time()
    game = Game.new(deal, rules)
    agent.reset(DealInfo(seed=seed, rules=rules))
    ending, actions = play_on(agent, game, max_moves)
    return GameRecord(deal, game.is_won, game.move_count, sum(game.foundations), time.perf_counter() - start, ending,
                      time.process_time() - cpu_start, tuple(actions))


_worker_agent: Agent | None = None


def _init_worker(agent_spec: str, rules_options: dict) -> None:
    global _worker_agent
    _worker_agent = make_agent(agent_spec)
    # a few moves of an unscored deal, so that loading compiled kernels is not timed as play
    play_game(_worker_agent, 0, Rules(**rules_options), seed=0, max_moves=3)


def _play_in_worker(job: tuple[int, dict, int, int]) -> GameRecord:
    deal, rules_options, seed, max_moves = job
    return play_game(_worker_agent, deal, Rules(**rules_options), seed, max_moves)


def play_deals(agent_spec: str, deals: list[int], rules: Rules, seed: int = 0, workers: int = 1,
               max_moves: int = DEFAULT_MAX_MOVES, progress: bool = True, on_record=None,
               backend: Backend | None = None, stats: JobStats | None = None) -> list[GameRecord]:
    """Play every deal on ``backend`` (default: ``workers`` local processes). Records come back
    in deal order; ``on_record(record)`` sees each as its game ends (see :func:`agents.jobs.run_jobs`)."""
    rules_options = asdict(rules)
    jobs = [(deal, rules_options, deal_seed(seed, deal), max_moves) for deal in deals]
    return run_jobs(_play_in_worker, jobs, _init_worker, (agent_spec, rules_options), backend or Backend(workers=workers),
                    progress=progress, desc=agent_spec, unit="game", on_result=on_record, stats=stats)


# --- statistics ---------------------------------------------------------------------
def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    center = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, center - half), min(1.0, center + half))


def verdict_file(rules: Rules) -> Path | None:
    """The solver's verdict file for these rules, when one ships (standard rules, draw 1 or 3)."""
    return shipped_verdict_file(rules.draw_count) if rules == Rules(draw_count=rules.draw_count) else None


def load_verdicts(path: Path) -> dict[int, str]:
    """Each deal's solver verdict in a verdict CSV, lower case (``solved``, ``unsolvable``, ``unknown``)."""
    from klondike_env.solver import read_verdicts

    return {deal: status.lower() for deal, status in read_verdicts(path).items()}


def summarize(records: list[GameRecord], rules: Rules, verdicts: Path | None = None) -> dict:
    """The summary metrics of one run (see BENCHMARK.md).

    ``verdicts`` is the solver's verdict CSV (default: the one for ``rules``, when present).
    """
    games = len(records)
    wins = sum(record.won for record in records)
    low, high = wilson_interval(wins, games)
    win_moves = [record.moves for record in records if record.won]
    endings: dict[str, int] = {}
    for record in records:
        endings[record.ending] = endings.get(record.ending, 0) + 1
    summary = {
        "games": games,
        "wins": wins,
        "win_rate": wins / games if games else 0.0,
        "win_rate_ci95": [low, high],
        "mean_foundation_cards": float(np.mean([r.foundation_cards for r in records])) if records else 0.0,
        "mean_moves": float(np.mean([r.moves for r in records])) if records else 0.0,
        "moves_per_win": float(np.mean(win_moves)) if win_moves else None,
        "seconds_per_game": float(np.mean([r.seconds for r in records])) if records else 0.0,
        "max_seconds_per_game": float(max((r.seconds for r in records), default=0.0)),
        "cpu_seconds_per_game": float(np.mean([r.cpu_seconds for r in records])) if records else 0.0,
        "endings": endings,
        "winnable": None,
    }
    path = verdicts if verdicts is not None else verdict_file(rules)
    if path is not None:
        verdicts = load_verdicts(path)
        judged = [r for r in records if r.deal in verdicts and verdicts[r.deal] != "unknown"]
        winnable = [r for r in judged if verdicts[r.deal] == "solved"]
        won_winnable = sum(r.won for r in winnable)
        summary["winnable"] = {
            "verdict_file": _display_path(path),
            "deals_with_verdict": len(judged),
            "deals_unknown": games - len(judged),
            "winnable_deals": len(winnable),
            "wins_on_winnable": won_winnable,
            "win_rate_on_winnable": won_winnable / len(winnable) if winnable else None,
            "win_rate_on_winnable_ci95": list(wilson_interval(won_winnable, len(winnable))) if winnable else None,
        }
    return summary


def _display_path(path: Path) -> str:
    """``path`` relative to the project root when it lies inside it."""
    try:
        return str(Path(path).resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)


def code_version() -> str | None:
    """The git commit of the project (``+dirty`` when files differ from it), if it is a checkout."""
    import subprocess

    root = PROJECT_ROOT
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True,
                             timeout=10).stdout.strip()
        if not top or Path(top).resolve() != root:  # an installed copy, even one inside another checkout
            return None
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                                timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (commit + ("+dirty" if dirty else "")) or None


# --- files ---------------------------------------------------------------------------
def game_of_row(row: dict[str, str], path: str | os.PathLike, index: int) -> tuple[int, list[int]]:
    """``(deal, actions)`` of the ``index``-th row of :func:`read_game_rows`; a bad cell is a
    ``ValueError`` naming the file and line."""
    try:
        return int(row["deal"]), parse_moves(row["actions"])
    except (ValueError, TypeError, AttributeError):  # the last two: a row too short to have the cell
        raise ValueError(f"{path} line {index + 2}: bad row (deal {row['deal']!r}, actions {row['actions']!r}): "
                         "expected a deal number and space-separated action ids") from None


def read_games(path: str | os.PathLike) -> list[tuple[int, list[int]]]:
    """``(deal, actions)`` of every game in a results CSV written by :func:`write_results`."""
    return [game_of_row(row, path, index) for index, row in enumerate(read_game_rows(path))]


def local_backend(agent_spec: str, rules: Rules, seed: int, max_moves: int, workers: int = 1,
                  progress: bool = True, backend: Backend | None = None, stats: JobStats | None = None):
    """The harness's agent backend: ``play(deals, on_record)`` plays the deals on ``backend``
    (default: ``workers`` local processes), each game seeded by :func:`deal_seed`, and hands each
    record to ``on_record`` in this process as its game ends."""
    def play(deals: list[int], on_record) -> None:
        play_deals(agent_spec, deals, rules, seed=seed, workers=workers, max_moves=max_moves, progress=progress,
                   on_record=on_record, backend=backend, stats=stats)

    return play


def run_evaluation(play, identity: dict, deals: list[int], rules: Rules, out_dir: str | os.PathLike, stem: str, *,
                   overwrite: bool = False, header: dict | None = None, stats: JobStats | None = None) -> tuple[Path, dict]:
    """The harness's driver, for any backend: open (or resume) the run's files, have
    ``play(remaining_deals, on_record)`` play the deals not yet recorded -- each record is
    appended to the CSV as it arrives --, then summarise the CSV into the JSON.

    ``identity`` (:func:`agents.results.run_identity`) tells the same run (resumed) from
    another (refused unless ``overwrite``); ``header`` is put at the top of the summary, and
    ``stats`` (what the backend filled in while playing) under ``"jobs"``. Returns ``(json_path, summary)``.
    """
    prepare_output_dir(out_dir, "--out")  # before playing: a bad folder must not cost the games
    return run_resumable(play, identity, deals, out_dir, stem, _summarizer(rules), overwrite=overwrite, header=header,
                         stats=stats)


def _summarizer(rules: Rules):
    return lambda records: {"rules": asdict(rules), **summarize(records, rules)}


def write_summary(files: ResultsFiles, deals: list[int], rules: Rules, header: dict | None = None,
                  **details) -> tuple[Path, dict]:
    """Summarise the games recorded so far in ``files`` (``header`` first, ``details`` last) into
    the run's JSON, the CSV put in the seed set's order; returns ``(json_path, summary)``."""
    return write_run_summary(files, deals, _summarizer(rules), header, **details)


def evaluate(agent_spec: str, seeds: str, rules: Rules | None = None, *, seed: int = 0, workers: int = 1,
             max_moves: int = DEFAULT_MAX_MOVES, out_dir: str | os.PathLike = "results", progress: bool = True,
             command: str | None = None, overwrite: bool = False, backend: Backend | None = None) -> tuple[Path, dict]:
    """Play ``agent_spec`` on the seed set and write the CSV and JSON; returns ``(json_path, summary)``.

    ``backend`` (:class:`agents.jobs.Backend`) says where the games run (default: ``workers``
    local processes); the rows do not depend on it.

    The files are named by :func:`agents.results.result_stem`; rerunning the same run into the
    same folder resumes it, another run with the same name is refused unless ``overwrite``.
    """
    rules = Rules() if rules is None else rules
    seeds_name, deals = load_seed_set(seeds)
    backend = backend or Backend(workers=workers)
    agent = make_agent(agent_spec)
    header = {
        "agent": agent.label,
        "agent_spec": agent_spec,
        "sees_hidden_cards": agent.sees_hidden_cards,
        "sees_stock": agent.sees_stock,
        "seeds": seeds_name,
        "seed": seed,
        "max_moves": max_moves,
        "workers": backend.workers,
        "backend": backend.name,
        "command": command,
        "code_version": code_version(),  # before playing: the code that is about to run
    }
    identity = run_identity(agent.label, seeds_name, rules, seed, max_moves)
    stats = JobStats(backend.name)
    play = local_backend(agent_spec, rules, seed, max_moves, progress=progress, backend=backend, stats=stats)
    return run_evaluation(play, identity, deals, rules, out_dir, result_stem(agent.label, seeds_name, rules, seed, max_moves),
                          overwrite=overwrite, header=header, stats=stats)


def summarize_results(csv_path: str | os.PathLike, *, rules: Rules | None = None, write: bool = True) -> tuple[Path, dict]:
    """Rebuild the summary of a results CSV (a finished run, or one cut short): the JSON beside it
    gives the run's identity and details when it is there, else ``rules`` (default standard
    draw-3) and the file name stand in. With ``write``, the JSON beside the CSV is (re)written.
    Returns ``(json_path, summary)``; the summary covers the deals in the CSV (``"complete"`` says
    whether the run had played all its deals when its JSON was last written).
    """
    csv_path = Path(csv_path)
    records = read_records(csv_path)
    json_path = csv_path.with_suffix(".json")
    stored: dict = {}
    if json_path.is_file():
        try:
            stored = json.loads(json_path.read_text())
        except json.JSONDecodeError:
            stored = {}
    identity = stored_identity(stored) if stored else {}
    if rules is None:
        rules = Rules(**identity["rules"]) if identity.get("rules") else Rules()
    deals = [record.deal for record in records]
    summary = {
        "agent": csv_path.stem, "seeds": csv_path.stem,
        **stored,  # what the rows cannot tell (agent, command, times) is kept; the rest is recomputed
        "deals": deals_text(deals), "rules": asdict(rules),
        **summarize(records, rules),
        "run": identity or None, "complete": stored.get("complete"), "csv": str(csv_path),
    }
    if len(set(deals)) != len(deals):
        raise ValueError(f"{csv_path} lists a deal twice: it is not one run's results")
    if write:
        write_json(json_path, summary)
    return json_path, summary


__all__ = [
    "AgentError", "GameRecord", "SeedSetError", "deal_seed", "evaluate", "load_seed_set",
    "game_of_row", "parse_moves", "play_deals", "play_game", "play_on", "read_game_rows", "read_games", "summarize", "wilson_interval",
    "write_results", "run_evaluation", "write_summary", "local_backend", "summarize_results", "ResultsExistError", "CSV_COLUMNS",
]
