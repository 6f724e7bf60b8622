"""Every agent plays legal moves only and finishes its games; the registry names what is allowed."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from agents import RESIGN, make_agent
from agents.base import UNKNOWN, AgentOptionError, DealInfo, PlayerView
from agents.evaluation import deal_seed, play_deals, play_game, play_on
from agents.greedy import GreedyAgent, is_safe_to_foundation
from klondike_env import Game, Rules, card_str, parse_card
from klondike_env.core import DRAW, RECYCLE
from klondike_env.solver import SolveStatus, solve

ROOT = Path(__file__).resolve().parents[1]
ENDINGS = {"won", "dead", "resigned", "move limit"}
FAST_AGENTS = [
    "random", "greedy", "determinized:samples=3,nodes=2000", "oracle:nodes=50000",
]
# The remedies on by default (followable, reveal, second) off, so that a test sees the mechanism
# it is about decide alone.
REMEDIES_OFF = "second=0,followable=false,reveal=false"


@pytest.mark.parametrize("spec", FAST_AGENTS)
@pytest.mark.parametrize("draw", [3, 1])
def test_agent_plays_legal_moves_and_finishes(spec, draw):
    """play_game raises AgentError on any illegal action, so finishing proves legality."""
    agent = make_agent(spec)
    rules = Rules(draw_count=draw)
    for deal in (1, 2, 3):
        record = play_game(agent, deal, rules, seed=deal, max_moves=400)
        assert record.ending in ENDINGS
        assert record.moves <= 400
        assert record.won == (record.foundation_cards == 52)


def test_agents_only_return_legal_actions_or_resign():
    rules = Rules()
    for spec in FAST_AGENTS[:3]:
        agent = make_agent(spec)
        agent.reset(DealInfo(seed=0, rules=rules))
        game = Game.new(5)
        if agent.sees_hidden_cards:
            agent.reveal(game.copy())
        for _ in range(60):
            view = PlayerView(game)
            action = agent.act(view)
            if action == RESIGN:
                break
            assert action in view.legal_actions
            game.step(action)


def test_greedy_beats_random_on_a_fixed_set():
    deals = list(range(1, 41))
    greedy = play_deals("greedy", deals, Rules(), progress=False)
    random = play_deals("random", deals, Rules(), progress=False, max_moves=300)
    assert sum(r.won for r in greedy) > sum(r.won for r in random)
    assert np.mean([r.foundation_cards for r in greedy]) > np.mean([r.foundation_cards for r in random])


def test_greedy_safe_foundation_rule():
    empty = (0, 0, 0, 0)
    assert is_safe_to_foundation(parse_card("2H"), empty)
    assert not is_safe_to_foundation(parse_card("5H"), (3, 4, 4, 3))  # 4C, 4S still out
    assert not is_safe_to_foundation(parse_card("5H"), (4, 0, 0, 3))  # 4S still out
    assert not is_safe_to_foundation(parse_card("5H"), (3, 0, 0, 4))  # 4C still out
    assert is_safe_to_foundation(parse_card("5H"), (4, 0, 0, 4))
    assert is_safe_to_foundation(parse_card("5H"), (4, 4, 4, 4))


def test_greedy_safe_foundation_rule_against_its_definition():
    """Safe: an ace or a two, or every card that could be built on it in the tableau (the
    opposite colour's cards one rank lower) already home; written from card names alone."""
    rank = {card: "A23456789TJQK".index(card_str(card)[0]) + 1 for card in range(52)}
    suit = {card: "CDHS".index(card_str(card)[1]) for card in range(52)}
    red = {card: card_str(card)[1] in "DH" for card in range(52)}
    builders = {card: [other for other in range(52) if red[other] != red[card] and rank[other] == rank[card] - 1]
                for card in range(52)}
    rng = np.random.default_rng(0)
    for _ in range(300):
        foundations = tuple(int(height) for height in rng.integers(0, 14, 4))
        for card in range(52):
            expected = rank[card] <= 2 or all(rank[other] <= foundations[suit[other]] for other in builders[card])
            assert is_safe_to_foundation(card, foundations) == expected, (card_str(card), foundations)


def test_oracle_wins_a_solvable_deal_and_is_marked():
    from klondike_env.solver import SolveStatus, solve

    deal = next(d for d in range(1, 30) if solve(Game.new(d), node_limit=50_000).status == SolveStatus.SOLVED)
    oracle = make_agent("oracle:nodes=50000")
    assert oracle.sees_hidden_cards
    assert play_game(oracle, deal, Rules(), seed=0).won
    assert not any(make_agent(spec).sees_hidden_cards for spec in ("random", "greedy", "determinized"))


def test_determinized_is_reproducible_for_a_seed():
    first = play_deals("determinized:samples=3,nodes=2000", [2, 3], Rules(), seed=5, progress=False)
    second = play_deals("determinized:samples=3,nodes=2000", [2, 3], Rules(), seed=5, progress=False)
    assert [(r.won, r.moves, r.foundation_cards) for r in first] == [(r.won, r.moves, r.foundation_cards) for r in second]


@pytest.mark.parametrize(
    "spec,message",
    [
        ("nobody", "unknown agent 'nobody': allowed agents are random, greedy, determinized, oracle, policy, rollout"),
        ("greedy:depth=2", "unknown option 'depth' for agent 'greedy': allowed options are none"),
        ("determinized:sample=2", "allowed options are batch, batch_free, budget, by_class, check, commit, contest, "
                                  "followable, free_own, keep, lookahead, lookahead_nodes, nodes, prior, refresh, refresh_below, repair, retry, "
                                  "retry_all, reveal, reveal_free, reveal_margin, robust, samples, scout, second, "
                                  "second_depth, see_stock, shallow, wide"),
        ("determinized:unit=reveal", "unknown option 'unit' for agent 'determinized': allowed options are batch, batch_free, "
                                     "budget, by_class, check, commit, contest, followable, free_own, keep, lookahead, "
                                     "lookahead_nodes, nodes, prior, "
                                     "refresh, refresh_below, repair, retry, retry_all, reveal, reveal_free, reveal_margin, "
                                     "robust, samples, scout, second, second_depth, see_stock, shallow, wide"),
        ("determinized:reveal_margin=1.5", "bad value 1.5 for option 'reveal_margin' of agent 'determinized': "
                                           "must be between 0 and 1"),
        ("determinized:shallow=-5", "bad value '-5' for option 'shallow' of agent 'determinized': must be >= 0"),
        ("determinized:see_stock=maybe", "bad value 'maybe' for option 'see_stock' of agent 'determinized': expected bool"),
        ("determinized:samples=many", "bad value 'many' for option 'samples'"),
        ("determinized:samples=0", "must be >= 1"),
        ("determinized:second_depth=0", "bad value '0' for option 'second_depth' of agent 'determinized': "
                                        "must be >= 1"),
        ("determinized:samples=-1", "bad value '-1' for option 'samples' of agent 'determinized': must be >= 1"),
        ("determinized:lookahead=-2", "bad value '-2' for option 'lookahead' of agent 'determinized': must be >= 0"),
        ("determinized:nodes=-1", "bad value '-1' for option 'nodes' of agent 'determinized': must be >= 0"),
        ("oracle:budget=nan", "bad value 'nan' for option 'budget' of agent 'oracle': must be >= 0"),
        ("determinized:samples", "expected key=value"),
        ("policy", "needs path=MODEL.zip"),
        ("policy:path=no/such/model.zip", "model file 'no/such/model.zip' not found"),
    ],
)
def test_registry_errors_name_what_is_allowed(spec, message):
    with pytest.raises(AgentOptionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_agent(spec)


def test_make_agent_parses_options():
    agent = make_agent("determinized:samples=4,nodes=500,budget=0.5")
    assert (agent.samples, agent.nodes, agent.budget) == (4, 500, 0.5)
    assert agent.label == "determinized:samples=4,nodes=500,budget=0.5"


@pytest.mark.parametrize("spec, label", [
    ("determinized:check=false,scout=TRUE", "determinized:check=false,scout=true"),
    ("determinized: check = no ", "determinized:check=false"),
    ("determinized:by_class=1,see_stock=yes", "determinized:by_class=true,see_stock=true"),
])
def test_specs_are_echoed_in_one_canonical_form(spec, label):
    """Booleans print as a spec writes them (``false``, not Python's ``False``), and the label
    is itself a spec that builds the same agent."""
    agent = make_agent(spec)
    assert agent.label == label and make_agent(agent.label).label == label


def test_importing_agents_loads_no_torch():
    code = "import sys, agents, agents.evaluation; sys.exit('torch' in sys.modules or 'stable_baselines3' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """An untrained MaskablePPO saved the way a training run saves it, with its config.yaml."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from klondike_env.env import KlondikeEnv

    run = tmp_path_factory.mktemp("run")
    env = KlondikeEnv(observation="visible", draw_count=3)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, policy_kwargs={"net_arch": [16]}, seed=0)
    model.save(run / "model.zip")
    (run / "config.yaml").write_text("name: tiny\nenv:\n  observation: visible\n  draw_count: 3\n")
    return run


def test_policy_agent_plays_legal_moves(tiny_model):
    agent = make_agent(f"policy:path={tiny_model / 'model.zip'}")
    assert agent.mode == "visible"  # read from the run's config.yaml
    assert agent.observation_dtype == "float32"  # a config.yaml older than the option
    record = play_game(agent, 1, Rules(), seed=0, max_moves=100)
    assert record.ending in ENDINGS and record.moves <= 100


def test_policy_agent_refuses_full_observations(tiny_model, tmp_path):
    (tmp_path / "model.zip").write_bytes((tiny_model / "model.zip").read_bytes())
    (tmp_path / "config.yaml").write_text("env:\n  observation: full\n")
    with pytest.raises(AgentOptionError, match="hidden cards"):
        make_agent(f"policy:path={tmp_path / 'model.zip'}")


def test_policy_agent_names_the_observation_size_a_model_expects(tiny_model, tmp_path):
    bare = tmp_path / "model.zip"  # the model without its run's config.yaml
    bare.write_bytes((tiny_model / "model.zip").read_bytes())
    expects = re.escape("expects 485 observation values (observation mode 'visible'), but ")
    missing = "no config.yaml was found beside it, and the default mode 'information' gives 745: "
    with pytest.raises(AgentOptionError, match=expects + missing +
                       "put the model's own run config.yaml beside it or pass observation=visible$"):
        make_agent(f"policy:path={bare}")
    with pytest.raises(AgentOptionError, match=expects + "the given observation mode 'information' gives 745: "
                       "pass observation=visible$"):
        make_agent(f"policy:path={tiny_model / 'model.zip'},observation=information")
    assert make_agent(f"policy:path={bare},observation=visible").mode == "visible"
    from agents.training.evaluation import evaluate_policy_file

    with pytest.raises(AgentOptionError, match=expects + missing + "put the model's own run config.yaml beside it$"):
        evaluate_policy_file(bare, "1-1", out_dir=tmp_path / "results")


def test_batched_evaluation_checks_its_out_folder_before_playing(tiny_model, tmp_path, monkeypatch):
    import agents.training.evaluation as batched

    monkeypatch.setattr(batched, "evaluate_model", lambda *a, **k: pytest.fail("games were played"))
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match="bad --out .*: cannot create "):
        batched.evaluate_policy_file(tiny_model / "model.zip", "1-1", out_dir=blocker / "results")


@pytest.mark.parametrize("max_passes,scouts", [(None, True), (3, False)])
def test_determinized_first_looks_through_the_stock_when_passes_are_free(max_passes, scouts):
    record = play_deals("determinized:samples=2,nodes=1000", [4], Rules(max_passes=max_passes), seed=0,
                        max_moves=12, progress=False)[0]
    game = Game.new(4, Rules(max_passes=max_passes))
    draws_to_see_the_stock = -(-len(game.stock) // game.rules.draw_count)
    opening = list(record.actions[:draws_to_see_the_stock])
    assert (opening == [DRAW] * draws_to_see_the_stock) == scouts
    for action in record.actions[:draws_to_see_the_stock]:
        game.step(action)
    if scouts:
        assert game.stock == () and len(game.waste) == 24  # every talon card now seen


def test_greedy_priority_decides_only_among_exact_ties():
    from agents.base import PlayerView
    from agents.determinized import DeterminizedAgent

    deal = next(d for d in range(1, 200)
                if any(a > 1 and PlayerView(Game.new(d)).effect(a).flips for a in Game.new(d).legal_actions()))
    view = PlayerView(Game.new(deal))
    flip = next(a for a in view.legal_actions if a > 1 and view.effect(a).flips)
    lines = {DRAW: [None] * 3, flip: [None] * 1}
    agent = DeterminizedAgent()
    agent.reset(DealInfo(seed=0, rules=Rules()))
    prefixes = {DRAW: [DRAW], flip: [flip]}  # candidates are first actions (commit off)
    assert agent._ranked(view, {DRAW: [None] * 4, flip: [None] * 4}, lines, prefixes) == [flip, DRAW]  # greedy draws last
    assert agent._ranked(view, {DRAW: [None] * 5, flip: [None] * 4}, lines, prefixes) == [DRAW, flip]


def test_first_losing_move_brackets_the_loss():
    """After the move found the deal is not solved, before it it is (random play on winnable deals)."""
    from agents.analysis import first_losing_move, is_solved, position_after

    rng = np.random.default_rng(4)
    checked = 0
    for deal in (3, 5, 6, 8):
        if not is_solved(Game.new(deal), 100_000):
            continue
        actions = _random_game(deal, 60, rng)
        move = first_losing_move(deal, actions, Rules(), 100_000)
        if move is None:
            assert is_solved(position_after(deal, actions, Rules(), len(actions)), 100_000)
            continue
        assert 1 <= move <= len(actions)
        assert is_solved(position_after(deal, actions, Rules(), move - 1), 100_000)
        assert not is_solved(position_after(deal, actions, Rules(), move), 100_000)
        checked += 1
    assert checked >= 1


def _random_game(deal: int, moves: int, seed: int | np.random.Generator) -> list[int]:
    """Random legal moves from the opening of ``deal`` (a Generator passed on is drawn from, not copied)."""
    rng = np.random.default_rng(seed)
    game, actions = Game.new(deal), []
    while len(actions) < moves and not game.is_won:
        action = int(rng.choice(game.legal_actions()))
        game.step(action)
        actions.append(action)
    return actions


def test_label_moves_scores_every_choice_up_to_the_losing_move():
    """One share per legal move, -1 for the rest; the true deal alone where no world was sampled;
    the labels stop at the losing move bisection finds."""
    from agents.analysis import first_losing_move, is_solved, label_moves, position_after

    stopped_at_loss = 0
    for deal, seed in ((12, 1), (12, 3), (14, 1), (5, 1)):  # random play loses the first three
        actions = _random_game(deal, 60, seed)
        labelled = label_moves(deal, actions, Rules(), worlds=2, node_limit=100_000, seed=0)
        numbers = [number for number, _ in labelled]
        assert numbers == sorted(set(numbers))
        for number, shares in labelled:
            game = position_after(deal, actions, Rules(), number)
            legal = game.legal_actions()
            assert len(legal) > 1
            assert set(np.flatnonzero(shares >= 0)) == set(legal)
            assert np.all(shares[legal] <= 1)
            true_deal = {}
            for action in legal:
                child = game.copy()
                child.step(action)
                true_deal[action] = is_solved(child, 100_000)
            if len(set(true_deal.values())) == 1:  # no world sampled: the true deal's verdicts
                assert all(shares[action] == float(won) for action, won in true_deal.items())
        # every position with a choice before the last labelled one is labelled
        last = numbers[-1] if numbers else -1
        with_choice = [n for n in range(last + 1)
                       if len(position_after(deal, actions, Rules(), n).legal_actions()) > 1]
        assert numbers == with_choice
        losing = first_losing_move(deal, actions, Rules(), 100_000)
        if losing is not None and losing >= 1 and labelled:
            assert last + 1 <= losing  # the move after which it was lost is the last labelled one, or forced
            if len(position_after(deal, actions, Rules(), losing - 1).legal_actions()) > 1:
                assert last + 1 == losing
                stopped_at_loss += 1
    assert stopped_at_loss >= 3


def test_label_moves_without_worlds_gives_the_true_deal_verdicts():
    from agents.analysis import label_moves

    actions = _random_game(12, 60, 3)
    for _, shares in label_moves(12, actions, Rules(), worlds=0, node_limit=100_000):
        assert set(np.unique(shares[shares >= 0])) <= {0.0, 1.0}


def test_label_moves_script_writes_positions_and_refuses_a_missing_file(tmp_path):
    from agents.base import PlayerView
    from agents.analysis import position_after

    actions = _random_game(12, 60, 3)  # lost at move 26
    games = tmp_path / "games.csv"
    games.write_text("deal,won,moves,actions\n12,0,%d,%s\n" % (len(actions), " ".join(map(str, actions))))
    out = tmp_path / "labels.npz"
    command = [sys.executable, "-m", "klondike_app", "label-moves", str(games), "--worlds", "2", "--workers", "1", "--out", str(out)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "1 games" in result.stdout and "mean regret" in result.stdout
    saved = np.load(out)
    assert len(saved["observations"]) == len(saved["shares"]) == len(saved["played"]) == len(saved["moves"])
    for index in (0, len(saved["moves"]) - 1):
        number = int(saved["moves"][index])
        assert saved["played"][index] == actions[number]
        view = PlayerView(position_after(12, actions, Rules(), number))
        assert np.array_equal(saved["observations"][index], view.observe("information+actions", "uint8"))
    missing = subprocess.run([sys.executable, "-m", "klondike_app", "label-moves", str(tmp_path / "none.csv")],
                             capture_output=True, text=True, cwd=ROOT)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "none.csv" in missing.stderr
    other_rules = tmp_path / "other.csv"
    other_rules.write_text("deal,won,moves,actions\n12,0,2,0 5\n")  # waste to column 2 with an empty waste
    illegal = subprocess.run([sys.executable, "-m", "klondike_app", "label-moves", str(other_rules), "--workers", "1"],
                             capture_output=True, text=True, cwd=ROOT)
    assert illegal.returncode == 2 and illegal.stderr.count("\n") == 1 and "draw-3 standard rules" in illegal.stderr


def test_move_kind_follows_the_action_table():
    from agents.analysis import move_kind

    kinds = [move_kind(action) for action in range(87)]
    assert kinds[:2] == ["draw", "recycle"]
    assert set(kinds[2:10]) == {"waste"} and set(kinds[10:17]) == {"column to foundation"}
    assert set(kinds[17:59]) == {"column to column"} and set(kinds[59:]) == {"foundation to column"}


# --- the stock-visible track ------------------------------------------------------------
def face_down(game: Game) -> list[int]:
    return [card for column in game.tableau for card, up in column if not up]


@pytest.mark.parametrize("spec, stock_visible, deal", [(spec, stock_visible, 6) for spec, stock_visible in [
    ("determinized:samples=3,nodes=2000,see_stock=true", True),
    ("determinized:samples=4,nodes=2000", False),
    ("determinized:samples=6,nodes=2000,second=3", False),
    ("determinized:samples=6,nodes=2000,second_depth=3", False),
    ("determinized:samples=6,nodes=2000,second_depth=3,see_stock=true", True),
    ("determinized:samples=6,nodes=2000,contest=true", False),
    ("determinized:samples=6,nodes=2000,commit=true", False),
    ("determinized:samples=4,nodes=2000,commit=true,see_stock=true", True),
    ("determinized:samples=4,nodes=1000,by_class=true,wide=4", False),
    ("determinized:samples=4,nodes=1000,by_class=true,wide=4,see_stock=true", True),
    ("determinized:samples=4,nodes=1000,by_class=true,refresh=true", False),
    ("determinized:samples=4,nodes=1000,by_class=true,refresh=true,see_stock=true", True),
    ("determinized:samples=4,nodes=1000,refresh_below=3", False),
    ("determinized:samples=4,nodes=1000,by_class=true,prior=models/ppo_draw3_privileged_critic/model.zip", False),
    ("determinized:samples=4,nodes=1000,reveal=true", False),
    ("determinized:samples=4,nodes=1000,reveal=true,see_stock=true", True),
    ("determinized:samples=4,nodes=1000,shallow=300", False),
    ("determinized:samples=4,nodes=1000,shallow=300,see_stock=true", True),
    ("determinized:samples=4,nodes=1000,retry_all=true", False),
    ("determinized:samples=4,nodes=1000,retry_all=true,see_stock=true", True),
    ("determinized:samples=4,nodes=1000,free_own=true", False),
    ("determinized:samples=4,nodes=1000,free_own=true,see_stock=true", True),
    ("determinized:samples=4,nodes=1000,followable=true", False),
    ("determinized:samples=4,nodes=1000,followable=true,see_stock=true", True),
    ("hop:samples=4,batch=2,nodes=500", False),
    ("hop:samples=4,batch=2,nodes=500,see_stock=true", True),
]] + [  # a deal whose first 40 decisions include votes where the worlds disagree
    ("determinized:samples=4,nodes=1000,robust=true", False, 12),
    ("determinized:samples=4,nodes=1000,robust=true,see_stock=true", True, 12),
    ("determinized:samples=6,nodes=1000,lookahead=3,lookahead_nodes=500", False, 12),
    ("determinized:samples=6,nodes=1000,lookahead=3,lookahead_nodes=500,see_stock=true", True, 12),
] + [  # a deal whose first 40 decisions try lines turning a card up after a free move
    ("determinized:samples=4,nodes=1000,reveal=true,reveal_free=true", False, 5),
    ("determinized:samples=4,nodes=1000,reveal=true,reveal_free=true,see_stock=true", True, 4),
])
def test_search_agents_never_read_a_hidden_card(spec, stock_visible, deal):
    """At every decision of a game, the agent (in the same state) plays the same move in a
    world whose hidden cards lie elsewhere: the face-down tableau cards (the stock kept) on the
    stock-visible track, every hidden card otherwise."""
    import copy

    agent = make_agent(spec)
    assert agent.sees_stock == stock_visible and not agent.sees_hidden_cards
    agent.reset(DealInfo(seed=4, rules=Rules()))
    game = Game.new(deal)
    moved = 0
    for step in range(40):
        if game.is_over:
            break
        other = game.sample_world(step, cards=face_down(game) if stock_visible else None)
        if stock_visible:
            assert other.stock == game.stock and other.waste == game.waste
        moved += face_down(other) != face_down(game)
        twin = copy.deepcopy(agent)
        action = agent.act(PlayerView(game, stock_visible=stock_visible))
        assert twin.act(PlayerView(other, stock_visible=stock_visible)) == action, step
        if action == RESIGN:
            break
        game.step(action)
    assert moved >= 10


def test_the_prior_move_is_tried_in_every_world_and_wins_ties():
    """With ``prior``, the policy's likeliest move is a candidate at a decision, credited in every
    world where it wins, and ranked first among the candidates winning in the most worlds."""
    import copy

    from agents.positions import scouting_draw

    agent = make_agent(f"determinized:samples=4,nodes=2000,{REMEDIES_OFF}")
    agent.reset(DealInfo(seed=1, rules=Rules()))
    game = Game.new(3)
    while scouting_draw(PlayerView(game)):
        game.step(DRAW)
    view = PlayerView(game)
    plain = copy.deepcopy(agent).act(view)
    pick = next(action for action in reversed(view.legal_actions) if action != plain)
    probabilities = np.zeros(len(view.legal_mask))
    probabilities[pick] = 1.0
    agent._prior = "stand-in for a policy"
    agent._prior_probabilities = lambda _: probabilities
    seen = {}
    ranked = agent._ranked

    def capture(view, found, own, prefixes, prior=None, robust=None):
        seen.update(found=found, prefixes=prefixes, order=ranked(view, found, own, prefixes, prior, robust))
        return seen["order"]

    agent._ranked = capture
    action = agent.act(view)
    assert pick in seen["prefixes"]
    most = max(len(entries) for entries in seen["found"].values())
    assert (seen["order"][0] == pick) == (len(seen["found"][pick]) == most)
    assert action == seen["prefixes"][seen["order"][0]][0]


@pytest.mark.parametrize("see_stock", [False, True])
def test_a_commitment_ends_at_the_first_card_turned_up_and_is_named_by_what_the_player_sees(see_stock):
    """A winning line's commitment turns nothing up before its last action, which turns a card
    up; replayed in another world the player cannot tell apart, it is the same candidate."""
    from agents.positions import hidden_count, scouting_draw

    agent = make_agent(f"determinized:samples=2,nodes=3000,commit=true,see_stock={see_stock}")
    agent.reset(DealInfo(seed=1, rules=Rules()))
    game = Game.new(3)
    while scouting_draw(PlayerView(game, stock_visible=see_stock)):  # leave only face-down cards hidden
        game.step(DRAW)
    view = PlayerView(game, stock_visible=see_stock)
    cut = 0
    for seed in range(6):
        world = view.sample_world(seed)
        solution = solve(world, node_limit=200_000)
        if solution.status != SolveStatus.SOLVED:
            continue
        line = list(solution.actions)
        key, length = agent._candidate(world, line)
        prefix, replay = line[:length], world.copy()
        counts = [hidden_count(replay, see_stock)]
        for action in prefix:
            replay.step(action)
            counts.append(hidden_count(replay, see_stock))
        assert counts[-1] < counts[-2] and len(set(counts[:-1])) == 1, counts
        other = view.sample_world(seed + 100)
        assert agent._candidate(other, prefix)[0] == key
        cut += length < len(line)
    assert cut >= 3


@pytest.mark.parametrize("spec, deal", [("determinized:samples=8,nodes=3000,commit=true", 6),
                                        ("determinized:samples=8,nodes=1000,by_class=true,wide=6", 6),
                                        ("determinized:samples=8,nodes=1000,reveal=true", 6),
                                        ("determinized:samples=8,nodes=1000,reveal=true,reveal_free=true", 5),
                                        ("determinized:samples=8,nodes=1000,shallow=300", 6),
                                        ("determinized:samples=8,nodes=1000,robust=true", 12),
                                        ("determinized:samples=8,nodes=300,retry_all=true", 6),
                                        ("determinized:samples=8,nodes=1000,free_own=true", 6),
                                        ("determinized:samples=8,nodes=1000,followable=true", 6),
                                        ("determinized:samples=8,nodes=1000,second_depth=4", 6),
                                        ("determinized:samples=8,nodes=1000,contest=true", 6),
                                        ("determinized:samples=8,nodes=1000,lookahead=3,lookahead_nodes=500", 6)])
def test_every_kept_plan_wins_its_world(spec, deal):
    """After each decision the worlds kept are won by the lines kept with them: a commitment, or
    an action tried in fresh worlds, is credited only where it still wins."""
    agent = make_agent(spec)
    agent.reset(DealInfo(seed=3, rules=Rules()))
    game = Game.new(deal)
    checked = 0
    for _ in range(30):
        if game.is_over:
            break
        action = agent.act(PlayerView(game))
        game.step(action)
        for world, line in agent._plans:
            replay = world.copy()
            for step in line:
                replay.step(step)
            assert replay.is_won
            checked += 1
    assert checked >= 30


def _scouted(deal: int, see_stock: bool = False) -> Game:
    from agents.positions import scouting_draw

    game = Game.new(deal)
    while scouting_draw(PlayerView(game, stock_visible=see_stock)):
        game.step(DRAW)
    return game


@pytest.mark.parametrize("see_stock", [False, True])
def test_robust_deals_afresh_only_the_cards_still_hidden_at_the_first_card_turned_up(see_stock):
    """``robust`` stops a winning line at its first card turned up and solves a world the player
    there cannot tell from the line's own (every card seen kept), the hidden ones dealt anew; a
    line that turns nothing up holds up unsolved."""
    from agents.positions import hidden_count

    agent = make_agent(f"determinized:samples=2,nodes=1000,robust=true,see_stock={see_stock}")
    agent.reset(DealInfo(seed=1, rules=Rules()))
    view = PlayerView(_scouted(3, see_stock), stock_visible=see_stock)
    solved = []
    agent._solve = lambda world, nodes, actions=True: solved.append(world) or solve(world, node_limit=nodes, actions=actions)
    checked = 0
    for seed in range(4):
        world = view.sample_world(seed)
        result = solve(world, node_limit=200_000)
        if result.status != SolveStatus.SOLVED:
            continue
        line = list(result.actions)
        reached = world.copy()
        for action in line:
            reached.step(action)
            if hidden_count(reached, see_stock) < hidden_count(world, see_stock):
                break
        agent._holds_up(world, line)
        fresh = solved.pop()
        seen, dealt = PlayerView(reached, stock_visible=see_stock), PlayerView(fresh, stock_visible=see_stock)
        assert dealt.tableau == seen.tableau and dealt.waste == seen.waste and dealt.stock == seen.stock
        assert dealt.hidden_cards == seen.hidden_cards and seen.hidden_cards
        checked += fresh.tableau != reached.tableau  # face-down cards lie elsewhere
        free = DRAW if view.legal_mask[DRAW] else RECYCLE
        assert agent._holds_up(world, [free]) and not solved  # nothing turned up: nothing solved
    assert checked >= 2


def test_reveal_puts_a_move_turning_a_card_up_first_when_it_wins_as_often():
    """With ``reveal``, a move that turns a card up is played before the vote's choice when it wins
    in as many kept worlds, and not when it wins in fewer."""
    from klondike_env.solver import SolveResult

    agent = make_agent("determinized:samples=3,nodes=1000,reveal=true")
    agent.reset(DealInfo(seed=1, rules=Rules()))
    deal = next(d for d in range(1, 50) if any(PlayerView(_scouted(d)).effect(a).flips
                                                for a in PlayerView(_scouted(d)).legal_actions))
    view = PlayerView(_scouted(deal))
    flip = next(a for a in view.legal_actions if view.effect(a).flips)
    worlds = [view.sample_world(seed) for seed in range(3)]
    for status, first in [(SolveStatus.SOLVED, flip), (SolveStatus.UNSOLVABLE, RECYCLE)]:
        agent._plans = [(world, [RECYCLE]) for world in worlds]
        found, prefixes = {RECYCLE: [(world, []) for world in worlds]}, {RECYCLE: [RECYCLE]}
        agent._solve_after = lambda world, prefix, actions=True, nodes=0, line=None: SolveResult(status=status, actions=[])
        assert agent._revealing_first(view, [RECYCLE], found, prefixes)[0] == first


def _free_reveal_position() -> tuple[PlayerView, int]:
    """The first position of the greedy agent's game of deal 1 where no move turns up a card but a
    move that can be taken back (``first``, returned) is followed by one that does."""
    from agents.positions import free_reveals

    game, greedy = Game.new(1), GreedyAgent()
    greedy.reset(DealInfo(seed=1, rules=Rules()))
    while True:
        view = PlayerView(game)
        lines = free_reveals(view, game)
        if lines and not any(view.effect(a).flips for a in view.legal_actions):
            return view, lines[0][0]
        action = greedy.choose(view)
        greedy.note(view, action)
        game.step(action)


def test_reveal_free_plays_a_free_move_first_when_a_card_comes_up_after_it_as_often():
    """With ``reveal_free``, when no move turns up a card, a move that can be taken back and is
    followed by one that does is played before the vote's choice when that line wins in as
    many kept worlds, and not when it wins in fewer; without the option it never is."""
    from klondike_env.solver import SolveResult

    view, first = _free_reveal_position()
    choice = DRAW if view.legal_mask[DRAW] else RECYCLE
    worlds = [view.sample_world(seed) for seed in range(3)]
    for spec, status, played in [("reveal=true,reveal_free=true", SolveStatus.SOLVED, first),
                                 ("reveal=true,reveal_free=true", SolveStatus.UNSOLVABLE, choice),
                                 ("reveal=true", SolveStatus.SOLVED, choice)]:
        agent = make_agent(f"determinized:samples=3,nodes=1000,{spec}")
        agent.reset(DealInfo(seed=1, rules=Rules()))
        agent._plans = [(world, [choice]) for world in worlds]
        found, prefixes = {choice: [(world, []) for world in worlds]}, {choice: [choice]}
        agent._solve_after = lambda world, prefix, actions=True, nodes=0, line=None, status=status: SolveResult(
            status=status if len(prefix) == 2 else SolveStatus.UNSOLVABLE, actions=[])
        key = agent._revealing_first(view, [choice], found, prefixes)[0]
        assert prefixes[key][0] == played, spec
        if played == first:
            assert PlayerView(_stepped(worlds[0], prefixes[key][:1])).effect(prefixes[key][1]).flips
            assert len(found[key]) == 3


def _stepped(game: Game, actions: list[int]) -> Game:
    game = game.copy()
    for action in actions:
        game.step(action)
    return game


def test_shallow_plays_the_commitment_won_most_easily_among_those_winning_as_often():
    """With ``shallow``, before a move that cannot be taken back, the such move won in the most
    kept worlds within ``shallow`` classes is played when it wins in as many worlds as the
    vote's choice under the full budget, and the vote's choice otherwise."""
    from agents.positions import reversible
    from klondike_env.solver import SolveResult

    agent = make_agent("determinized:samples=3,nodes=1000,shallow=200")
    agent.reset(DealInfo(seed=1, rules=Rules()))
    view, deal = None, 0
    while view is None or len([a for a in view.legal_actions if not reversible(view, a)]) < 2:
        deal += 1
        view = PlayerView(_scouted(deal))
    choice, easy = [a for a in view.legal_actions if not reversible(view, a)][:2]
    worlds = [view.sample_world(seed) for seed in range(3)]
    agent._visited = set()
    for full, first in [(SolveStatus.SOLVED, easy), (SolveStatus.UNSOLVABLE, choice)]:
        agent._plans = [(world, [choice]) for world in worlds]
        found, prefixes = {choice: [(world, []) for world in worlds]}, {choice: [choice]}

        def solve_after(world, prefix, actions=True, nodes=0, line=None, full=full):
            shallow = nodes == agent.shallow
            won = prefix == [easy] if shallow else (full == SolveStatus.SOLVED or prefix == [choice])
            return SolveResult(status=SolveStatus.SOLVED if won else SolveStatus.UNSOLVABLE, actions=[])

        agent._solve_after = solve_after
        assert agent._easiest_first(view, [choice], found, prefixes)[0] == first


def _watch_votes(agent, deal: int, decisions: int, seen) -> None:
    """Play up to ``decisions`` moves of ``deal`` with ``agent``, calling ``seen(view, found, own,
    prefixes)`` at every vote, before the candidates are ranked."""
    ranked = agent._ranked

    def capture(view, found, own, prefixes, prior=None, robust=None):
        seen(view, found, own, prefixes)
        return ranked(view, found, own, prefixes, prior, robust)

    agent._ranked = capture
    game = Game.new(deal)
    for _ in range(decisions):
        action = agent.act(PlayerView(game))
        if action == RESIGN or game.is_over:
            break
        game.step(action)


def test_free_own_credits_a_draw_only_where_its_own_line_draws():
    """With ``free_own``, a candidate that puts nothing off for good (a draw, a recycle, a move that
    can be taken back) counts only the worlds whose own line starts with it, where checks would
    credit it in nearly every world; other candidates are still checked in every world."""
    agent = make_agent(f"determinized:samples=8,nodes=1000,free_own=true,{REMEDIES_OFF}")
    agent.reset(DealInfo(seed=0, rules=Rules()))
    split = []

    def seen(view, found, own, prefixes):
        free = [key for key in found if agent._free(view, prefixes[key])]
        if len(found) > 1 and free:
            split.append(all(len(found[key]) == len(own[key]) for key in free))

    _watch_votes(agent, 50052, 40, seen)
    assert split and all(split)


def test_followable_credits_no_line_that_walks_back_into_a_position_played_through():
    """With ``followable``, every line a candidate is credited with steps, up to its first talon
    card played or card turned up, only through positions the agent has not played through; in
    deal 50052 the plain vote credits such lines (draws round the talon after the scouting pass)."""
    counts = {}
    for followable in (False, True):
        agent = make_agent(f"determinized:followable={followable}")
        agent.reset(DealInfo(seed=deal_seed(0, 50052), rules=Rules()))  # the game of the benchmark's run
        credited, walking_back = [0], [0]

        def seen(view, found, own, prefixes, agent=agent):
            for key, entries in found.items():
                for world, rest in entries:
                    credited[0] += 1
                    walking_back[0] += not agent._followable(world, prefixes[key] + rest)

        _watch_votes(agent, 50052, 20, seen)
        counts[followable] = (credited[0], walking_back[0])
    assert counts[False][1] > 0 and counts[True][0] > 0 and counts[True][1] == 0, counts


def test_reversible_moves_are_those_whose_position_can_come_back():
    """Over many positions, a move counted reversible leads to a position from which the one
    before it comes back (by one move, or by drawing round the talon for a draw), and the others
    turn a card up, play a waste card, empty a column for good, or deal the talon in other groups."""
    from agents.positions import reversible

    assert not reversible(PlayerView(Game.new(5, Rules(max_passes=3))), DRAW)
    seen = Counter()
    for deal in range(1, 30):
        game = Game.new(deal)
        for step in range(80):
            view = PlayerView(game)
            for action in view.legal_actions:
                back = _comes_back(game, action)
                assert reversible(view, action) == back, (deal, step, game.action_name(action))
                seen[(action == DRAW, back)] += 1
            game.step(view.legal_actions[step % len(view.legal_actions)])
            if game.is_over:
                break
    assert all(seen[key] >= 5 for key in [(True, True), (True, False), (False, True), (False, False)]), seen


def _comes_back(game: Game, action: int) -> bool:
    """Whether the position before ``action`` comes back after it (passes aside): for a draw or
    a recycle by drawing and recycling round the talon, otherwise by one move."""
    from klondike_env import core

    def same(a: Game, b: Game) -> bool:
        return a.tableau == b.tableau and a.stock == b.stock and a.waste == b.waste and a.foundations == b.foundations

    child = game.copy()
    child.step(action)
    if action in (DRAW, core.RECYCLE):
        for _ in range(2 * (len(game.stock) + len(game.waste)) + 4):
            child.step(DRAW if DRAW in child.legal_actions() else core.RECYCLE)
            if same(child, game):
                return True
        return False
    for back in child.legal_actions():
        undone = child.copy()
        undone.step(back)
        if same(undone, game):
            return True
    return False


def test_stock_visible_games_repeat_for_a_seed_and_are_labelled(tmp_path):
    from agents.evaluation import evaluate
    from agents.reporting import display_name

    spec = "determinized:samples=3,nodes=2000,see_stock=true"
    first = play_deals(spec, [2, 3], Rules(), seed=5, progress=False)
    second = play_deals(spec, [2, 3], Rules(), seed=5, progress=False)
    assert [r.actions for r in first] == [r.actions for r in second]
    from agents.positions import scouting_draw

    assert scouting_draw(PlayerView(Game.new(2))) and not scouting_draw(PlayerView(Game.new(2), stock_visible=True))
    _, summary = evaluate(spec, "2-2", seed=5, out_dir=tmp_path, progress=False)
    assert summary["sees_stock"] and not summary["sees_hidden_cards"]
    assert "stock-visible track" in display_name(summary)
    _, plain = evaluate("greedy", "2-2", out_dir=tmp_path, progress=False)
    assert not plain["sees_stock"] and display_name(plain) == "greedy"


def batched_decisions(spec: str, seed: int, deal: int, moves: int):
    """``(view, drawn, firsts, plans)`` at each decision of ``spec``'s game of ``deal`` with hidden
    cards and the stock seen: the worlds one ``_solve_worlds`` call drew (its solver calls), the
    first actions of the won worlds' lines, and those worlds."""
    agent = make_agent(spec)
    agent.reset(DealInfo(seed=seed, rules=Rules()))
    game = Game.new(deal)
    for _ in range(moves):
        if game.is_over:
            break
        view = PlayerView(game)
        if view.hidden_cards and UNKNOWN not in view.stock:
            before = agent.solves
            plans = agent._solve_worlds(view)
            yield view, agent.solves - before, {line[0] for _, line in plans}, plans
        action = agent.act(view)
        if action == RESIGN:
            break
        game.step(action)


def test_batched_worlds_stop_on_a_unanimous_vote_and_go_on_when_close():
    """batch=B: worlds are drawn B at a time; drawing stops before samples only when at least
    B/2 are won and every win starts with the same action."""
    stopped = went_on = 0
    for _, drawn, firsts, plans in batched_decisions("determinized:samples=24,batch=6,nodes=1500,by_class=true",
                                                     seed=2, deal=12, moves=60):
        if drawn < 24:
            assert drawn % 6 == 0 and len(firsts) == 1 and 2 * len(plans) >= 6
            stopped += 1
        elif len(firsts) > 1:
            went_on += 1
    assert stopped and went_on


def test_batch_free_stops_early_only_before_a_move_that_can_be_taken_back():
    """batch_free=true: a decision whose won worlds all start with a move that cannot be taken
    back draws every sample; one whose move can be taken back may stop after a batch."""
    from agents.positions import reversible

    stopped = full_before_commitment = 0
    for view, drawn, firsts, plans in batched_decisions("determinized:samples=24,batch=6,batch_free=true,nodes=1500",
                                                        seed=2, deal=12, moves=80):
        if drawn < 24:
            assert len(firsts) == 1 and reversible(view, next(iter(firsts)))
            stopped += 1
        elif len(firsts) == 1 and 2 * len(plans) >= 6 and not reversible(view, next(iter(firsts))):
            full_before_commitment += 1
    assert stopped and full_before_commitment


def test_refresh_below_samples_afresh_before_a_commitment_with_few_plans_kept():
    """refresh_below=N: when fewer than N kept plans fit the view and one of them goes on with a
    move that cannot be taken back, the decision samples fresh worlds; otherwise kept plans are
    followed as without the option."""
    from agents.positions import reversible

    agent = make_agent("determinized:samples=12,nodes=1500,refresh_below=8")
    agent.reset(DealInfo(seed=3, rules=Rules()))
    sampled = []
    solve_worlds = agent._solve_worlds
    agent._solve_worlds = lambda view: sampled.append(view) or solve_worlds(view)
    game = Game.new(7)
    refreshed = followed = 0
    for _ in range(120):
        if game.is_over:
            break
        view = PlayerView(game)
        kept = [(world, line) for world, line in agent._plans if line and view.matches(world)]
        commits = any(not reversible(view, line[0]) for _, line in kept)
        calls = len(sampled)
        action = agent.act(view)
        if agent.keep <= len(kept) < 8:
            assert (len(sampled) > calls) == commits
            refreshed += commits
        elif len(kept) >= 8:
            assert len(sampled) == calls
            followed += 1
        if action == RESIGN:
            break
        game.step(action)
    assert refreshed and followed


def test_repair_answers_checks_with_lines_that_win_in_their_worlds():
    """repair=true: checks are answered by a world's own line carried over where it wins (no
    solver call); every plan the agent keeps, carried-over lines included, wins in its world, and
    equal seeds still give equal games."""

    def play(seed: int):
        agent = make_agent("determinized:samples=12,nodes=1500,repair=true")
        agent.reset(DealInfo(seed=seed, rules=Rules()))
        game = Game.new(12)
        actions = []
        for _ in range(150):
            if game.is_over:
                break
            action = agent.act(PlayerView(game))
            for world, line in agent._plans:
                replay = world.copy()
                for step in line:
                    replay.step(step)  # raises on an illegal action
                assert replay.is_won
            if action == RESIGN:
                break
            game.step(action)
            actions.append(action)
        return agent.repaired, actions

    repaired, actions = play(seed=5)
    assert repaired > 0
    assert play(seed=5) == (repaired, actions)


def _play_watching(spec: str, method: str, watch) -> None:
    """Deal 5 played (80 moves, seed 3) by the agent ``spec``, ``watch(agent, result, *args)``
    called after each call of its method ``method``."""
    agent = make_agent(spec)
    agent.reset(DealInfo(seed=3, rules=Rules()))
    original = getattr(agent, method)

    def watched(*args):
        result = original(*args)
        watch(agent, result, *args)
        return result

    setattr(agent, method, watched)
    play_on(agent, Game.new(5), max_moves=80)


def test_second_depth_asks_the_worlds_alike_to_share_more_moves():
    """second_depth=D: the worlds a candidate leaves alike share D next actions, regrouped after each
    by what the player sees. Sharing more can only credit fewer worlds, never more than the worlds
    credited; and deeper does part from one action somewhere in a game."""
    from agents.positions import alike

    scores = []

    def watch(agent, _, prefix, entries):
        groups = alike(entries, prefix)
        scores.append([len(entries)] + [sum(agent._shared_wins(group, depth) for group in groups)
                                        for depth in (1, 2, 4)])

    _play_watching("determinized:samples=12,nodes=1500,second_depth=4", "_shared_second_wins", watch)
    assert scores
    assert all(credited >= one >= two >= four for credited, one, two, four in scores)
    assert any(four < one for _, one, _, four in scores)


def test_contest_weighs_other_commitments_against_a_unanimous_vote():
    """contest=true: on a unanimous vote for a move that cannot be taken back, the other legal moves
    that cannot either are credited in the kept worlds too (and none that can be taken back)."""
    from agents.positions import reversible

    agent = make_agent("determinized:samples=12,nodes=1500,contest=true")
    agent.reset(DealInfo(seed=3, rules=Rules()))
    contested = []
    contest = agent._contest

    def recorded(view, found, prefixes):
        before = set(found)
        contest(view, found, prefixes)
        contested.append((view, before, set(found) - before))

    agent._contest = recorded
    play_on(agent, Game.new(5), max_moves=80)
    assert any(added for _, _, added in contested)
    for view, before, added in contested:
        assert len(before) == 1
        assert not any(reversible(view, action) for action in added)


def test_player_line_plays_the_fresh_worlds_vote_up_to_a_commitment():
    """lookahead's line: the move most of the fresh worlds' winning lines take, then the next among
    those lines, every move but the last one that can be taken back and turns nothing up; and
    nothing when no fresh world is won."""
    from agents.lookahead import player_line
    from agents.positions import hidden_count, reversible
    from klondike_env.solver import SolveResult, SolveStatus, solve

    game = _scouted(5)
    view = PlayerView(game)
    lines = []

    def solved(world):
        result = solve(world, node_limit=2000)
        if result.status == SolveStatus.SOLVED:
            lines.append(list(result.actions))
        return result

    line = player_line(view, np.random.default_rng(7), 8, solved)
    won = list(lines)
    assert line and len(won) >= 2
    assert line == player_line(view, np.random.default_rng(7), 8, solved)
    firsts = Counter(winning[0] for winning in won)
    assert line[0] == min(firsts, key=lambda a: (-firsts[a], a))
    walk = game.copy()
    for action in line[:-1]:
        assert reversible(PlayerView(walk), action)
        hidden = hidden_count(walk)
        walk.step(action)
        assert hidden_count(walk) == hidden
    assert player_line(view, np.random.default_rng(7), 8, lambda world: SolveResult(SolveStatus.UNKNOWN)) == []


def test_lookahead_credits_no_more_worlds_than_the_vote_and_parts_from_second():
    """lookahead=K: a candidate is credited only in worlds it was already credited in, and ranking
    by the player's own next commitment differs somewhere in a game from the shared second action."""
    scores = []

    def watch(agent, wins, prefix, entries):
        scores.append((len(entries), wins, agent._shared_second_wins(prefix, entries)))

    _play_watching("determinized:samples=12,nodes=1500,lookahead=4,lookahead_nodes=1000", "_lookahead_wins", watch)
    assert scores
    assert all(credited >= wins for credited, wins, _ in scores)
    assert any(wins != shared for _, wins, shared in scores)
