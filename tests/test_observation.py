"""Observation encodings: layout, sizes, and the leak test (no hidden card ever shows)."""

from __future__ import annotations

import numpy as np
import pytest

from klondike_env import Game, Rules, core, parse_card
from klondike_env import observation as ob
from klondike_env.observation import OBSERVATION_MODES, observation_size, observation_space, observe

from conftest import ALL_RULES, random_playout


def plane(obs: np.ndarray, index: int) -> np.ndarray:
    start = ob.NUM_SCALARS + core.NUM_CARDS * index
    return obs[start:start + core.NUM_CARDS]


def test_sizes_and_spaces():
    assert [observation_size(m) for m in ("visible", "information", "full")] == [485, 745, 1161]
    for mode in ("visible", "information", "full"):
        assert observation_size(mode + "+actions") == observation_size(mode) + 87 * ob.ACTION_FEATURES
    for mode in OBSERVATION_MODES:
        space = observation_space(mode)
        assert space.shape == (observation_size(mode),) and space.dtype == np.float32
        assert space.contains(observe(Game.new(3), mode))


def test_unknown_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown observation mode 'partial'.*'information', 'visible', 'full'"):
        observe(Game.new(0), "partial")


def test_modes_are_prefixes_of_each_other():
    rng = np.random.default_rng(5)
    game = Game.new(11)
    for _ in random_playout(game, rng, 40):
        pass
    visible, information, full = (observe(game, m) for m in ("visible", "information", "full"))
    assert np.array_equal(information[: visible.size], visible)
    assert np.array_equal(full[: information.size], information)


def test_opening_layout_of_deal_1():
    game = Game.new(1)  # 7D alone in column 0, 8S face up on six face-down cards in column 6
    obs = observe(game, "information")
    assert obs[ob.S_FACE_DOWN + 6] == 1.0 and obs[ob.S_FACE_DOWN + 0] == 0.0
    assert obs[ob.S_STOCK] == 1.0 and obs[ob.S_UNSEEN_STOCK] == 1.0 and obs[ob.S_WASTE] == 0.0
    assert obs[ob.S_FIRST_PASS] == 1.0 and obs[ob.S_RECYCLE_ALLOWED] == 1.0
    assert np.flatnonzero(plane(obs, ob.P_COLUMN_UP + 0)).tolist() == [parse_card("7D")]
    assert np.flatnonzero(plane(obs, ob.P_COLUMN_UP + 6)).tolist() == [parse_card("8S")]
    hidden = plane(obs, ob.P_HIDDEN)
    assert hidden.sum() == 52 - 7 and hidden[parse_card("8S")] == 0
    assert not plane(obs, ob.P_TALON_ORDER).any() and not plane(obs, ob.P_WASTE).any()


def test_waste_stock_and_talon_order_after_draws_and_a_recycle():
    game = Game.new(1)
    talon = game.stock
    game.step(core.DRAW)
    obs = observe(game)
    waste = plane(obs, ob.P_WASTE)
    assert np.flatnonzero(waste).tolist() == sorted(talon[:3])
    assert np.flatnonzero(plane(obs, ob.P_WASTE_TOP)).tolist() == [talon[2]]
    order = plane(obs, ob.P_TALON_ORDER)
    assert [order[c] for c in talon[:3]] == pytest.approx([1 / 24, 2 / 24, 3 / 24])
    assert not plane(obs, ob.P_STOCK).any()  # no stock card has been seen yet
    while core.DRAW in game.legal_actions():
        game.step(core.DRAW)
    game.step(core.RECYCLE)
    obs = observe(game)
    # after a recycle the whole talon is known, in order, and all of it is stock again
    assert np.flatnonzero(plane(obs, ob.P_STOCK)).tolist() == sorted(talon)
    assert [plane(obs, ob.P_TALON_ORDER)[c] for c in talon] == pytest.approx([(i + 1) / 24 for i in range(24)])
    assert obs[ob.S_UNSEEN_STOCK] == 0 and obs[ob.S_FIRST_PASS] == 0 and obs[ob.S_RECYCLES] == 0.1
    # draw-3 tops reachable by draws alone: talon[2], talon[5], ..., talon[23]
    reachable = np.flatnonzero(plane(obs, ob.P_REACHABLE_TOP)).tolist()
    assert reachable == sorted(talon[i] for i in range(2, 24, 3))


def test_recycle_allowed_follows_max_passes():
    game = Game.new(1, Rules(max_passes=2))
    while core.DRAW in game.legal_actions():
        game.step(core.DRAW)
    assert observe(game)[ob.S_RECYCLE_ALLOWED] == 1.0
    game.step(core.RECYCLE)
    assert observe(game)[ob.S_RECYCLE_ALLOWED] == 0.0


def test_full_mode_shows_face_down_cards_and_depth():
    game = Game.new(1)
    obs = observe(game, "full")
    column6 = [card for card, _ in game.tableau[6]]
    assert np.flatnonzero(plane(obs, ob.P_COLUMN_DOWN + 6)).tolist() == sorted(column6[:6])
    assert [plane(obs, ob.P_DEPTH)[c] for c in column6] == pytest.approx([(d + 1) / 19 for d in range(7)])
    assert np.flatnonzero(plane(obs, ob.P_STOCK)).tolist() == sorted(game.stock)


# --- the leak test -------------------------------------------------------------------
def permuted_world(game: Game, rng: np.random.Generator) -> Game:
    """A new game from the true deck with the currently hidden cards permuted among their places.

    ``Game.sample_world`` relabels exactly the hidden cards; its deck is the true deck
    under that relabelling. We insist the permutation moves at least one card.
    """
    for _ in range(100):
        world = game.sample_world(rng)
        if world.deck != game.deck:
            return Game.from_deck(list(world.deck), game.rules)
    raise AssertionError("could not draw a non-trivial permutation")


def replay(game: Game, actions, modes) -> list[dict]:
    """Observations (and masks) after each prefix of ``actions``."""
    seen = [{m: observe(game, m) for m in modes} | {"mask": game.action_mask()}]
    for action in actions:
        game.step(action)
        seen.append({m: observe(game, m) for m in modes} | {"mask": game.action_mask()})
    return seen


@pytest.mark.parametrize("rules", ALL_RULES[::3], ids=lambda r: f"d{r.draw_count}-p{r.max_passes}-{r.empty_column}")
def test_leak_hidden_cards_never_change_information_or_visible(rules):
    """Hundreds of deals x depths: permuting the hidden cards leaves every observation equal."""
    rng = np.random.default_rng(2024)
    modes = ("full", "information", "visible", "information+actions", "visible+actions")
    checked = full_differs = 0
    for deal in range(60):
        depth = int(rng.choice([0, 1, 5, 20, 60, 150]))
        game = Game.new(1000 + deal, rules)
        actions = list(random_playout(game, rng, depth))
        if len(game.hidden_cards()) < 2:
            continue
        world = permuted_world(game, rng)
        truth = replay(Game.from_deck(list(game.deck), rules), actions, modes)
        other = replay(world, actions, modes)
        for step, (mine, theirs) in enumerate(zip(truth, other)):
            for mode in modes[1:]:
                assert np.array_equal(mine[mode], theirs[mode]), f"deal {1000 + deal} step {step}: {mode} leaks"
            assert np.array_equal(mine["mask"], theirs["mask"])
        full_differs += not np.array_equal(truth[-1]["full"], other[-1]["full"])
        checked += 1
    assert checked >= 50
    # the test can see a leak: the full mode, which shows hidden cards, differs every time
    assert full_differs == checked


def relabel(game: Game, first: int, second: int) -> Game:
    """The same position with cards ``first`` and ``second`` swapped wherever they lie."""
    other = game.copy()
    cards = other._state[: core.COLUMN_LENGTH]
    talon = other._state[core.TALON:core.TALON + core.TALON_SLOTS]
    for area in (cards, talon):
        a, b = area == first, area == second
        area[a], area[b] = second, first
    other._mask_valid = False
    return other


def test_changing_a_known_card_changes_the_observation():
    rng = np.random.default_rng(7)
    changed = 0
    for deal in range(200):
        game = Game.new(5000 + deal)
        for _ in random_playout(game, rng, int(rng.integers(0, 80))):
            pass
        hidden = game.hidden_cards()
        face_up = [card for column in game.tableau for card, up in column if up]
        if not hidden or not face_up:
            continue
        known, unknown = int(rng.choice(face_up)), int(rng.choice(hidden))
        swapped = relabel(game, known, unknown)
        for mode in ("information", "visible"):
            assert not np.array_equal(observe(game, mode), observe(swapped, mode)), f"deal {5000 + deal} {mode}"
        # and swapping two hidden cards changes nothing, the same check from the other side
        if len(hidden) >= 2:
            first, second = rng.choice(hidden, 2, replace=False)
            assert np.array_equal(observe(game), observe(relabel(game, int(first), int(second))))
        changed += 1
    assert changed >= 150


def test_batched_encoding_equals_single():
    rng = np.random.default_rng(3)
    games = []
    for deal in range(16):
        game = Game.new(deal)
        for _ in random_playout(game, rng, int(rng.integers(0, 100))):
            pass
        games.append(game)
    states = np.stack([game._state for game in games])
    rules = Rules().as_array()
    for mode in OBSERVATION_MODES:
        out = np.zeros((16, observation_size(mode)), np.float32)
        masks = np.stack([game.action_mask() for game in games]).astype(np.int8)
        ob.encode_batch(states, rules, masks, ob.mode_id(mode), out)
        assert np.array_equal(out, np.stack([observe(game, mode) for game in games]))


def test_every_card_has_exactly_one_place(any_rules):
    """information: face-up column, foundation, waste, known stock or hidden; full: the true place."""
    rng = np.random.default_rng(11)
    information_places = [ob.P_COLUMN_UP + c for c in range(7)] + [ob.P_FOUNDATION, ob.P_WASTE, ob.P_STOCK, ob.P_HIDDEN]
    full_places = [p for p in information_places if p != ob.P_HIDDEN] + [ob.P_COLUMN_DOWN + c for c in range(7)]
    for deal in range(4):
        game = Game.new(deal, any_rules)
        for _ in random_playout(game, rng, 120):
            information, full = observe(game, "information"), observe(game, "full")
            assert np.array_equal(sum(plane(information, p) for p in information_places), np.ones(52))
            assert np.array_equal(sum(plane(full, p) for p in full_places), np.ones(52))
            assert plane(information, ob.P_WASTE_TOP).sum() == (len(game.waste) > 0)
            assert information[ob.S_FOUNDATION:ob.S_FOUNDATION + 4] * 13 == pytest.approx(game.foundations)



def test_hidden_plane_is_the_face_down_cards_and_the_undrawn_first_pass_stock():
    """The ``information`` hidden plane (and ``game.hidden_cards``) against two counts made here,
    without the kernels' own notion: from the position (the face-down cards of ``game.tableau``,
    plus the stock while the first pass lasts) and from the game's history (every card not yet
    seen face up in a column or the waste since the deal)."""
    rng = np.random.default_rng(38)
    checked = first_pass_stock = 0
    for index in range(120):
        game = Game.new(int(rng.integers(0, 2**63)), ALL_RULES[index % len(ALL_RULES)])
        seen: set[int] = set()

        def look():
            seen.update(card for column in game.tableau for card, face_up in column if face_up)
            seen.update(game.waste)

        look()
        for _ in random_playout(game, rng, int(rng.integers(0, 300))):
            look()
        face_down = {card for column in game.tableau for card, face_up in column if not face_up}
        undrawn = set(game.stock) if game.passes == 1 else set()
        expected = sorted(face_down | undrawn)
        assert expected == sorted(set(range(52)) - seen)
        assert np.flatnonzero(plane(observe(game, "information"), ob.P_HIDDEN)).tolist() == expected
        assert game.hidden_cards() == expected
        checked += 1
        first_pass_stock += bool(undrawn and len(undrawn) < 24)
    assert checked == 120 and first_pass_stock > 10  # part-drawn first-pass stocks were among them


def test_scalars_are_the_documented_fractions(any_rules):
    """The scalar slots hold exactly ``float32(count / scale)`` (looked up from tables in the kernel)."""
    rng = np.random.default_rng(17)
    for deal in range(3):
        game = Game.new(300 + deal, any_rules)
        for _ in random_playout(game, rng, 120):
            state = game._state
            obs = observe(game)
            stock = int(state[core.TALON_LENGTH] - state[core.WASTE_LENGTH])
            recycles = int(state[core.RECYCLES])
            expected = [state[core.COLUMN_DOWN + c] / 6.0 for c in range(7)]
            expected += [state[core.FOUNDATION + s] / 13.0 for s in range(4)]
            expected += [stock / 24.0, state[core.WASTE_LENGTH] / 24.0, (stock if recycles == 0 else 0) / 24.0,
                         float(recycles == 0), float(core.recycle_allowed(state, game._rules_array)),
                         min(recycles, 10) / 10.0]
            assert np.array_equal(obs[: ob.NUM_SCALARS], np.array(expected, np.float32))


def test_action_features_say_what_each_move_does():
    """The ``+actions`` block against :meth:`PlayerView.effect` and the greedy agent's safety rule."""
    from agents.base import PlayerView
    from agents.greedy import is_safe_to_foundation

    rng = np.random.default_rng(13)
    start = observation_size("information")
    seen = {ob.F_FLIPS: 0, ob.F_EMPTIES: 0, ob.F_TO_EMPTY: 0, ob.F_UNCOVERS_HOME: 0, ob.F_SAFE_HOME: 0}
    for deal in range(40):
        game = Game.new(deal)
        for _ in random_playout(game, rng, int(rng.integers(0, 150))):
            pass
        features = observe(game, "information+actions")[start:].reshape(core.NUM_ACTIONS, ob.ACTION_FEATURES)
        assert np.array_equal(features[:, ob.F_LEGAL], game.action_mask().astype(np.float32))
        assert not features[game.action_mask() == 0].any()
        view = PlayerView(game)
        for action in game.legal_actions():
            effect, row = view.effect(action), features[action]
            if action <= core.RECYCLE:
                assert row[1:].sum() == 0
                continue
            assert row[ob.F_TO_FOUNDATION] == effect.to_foundation
            assert row[ob.F_FLIPS] == effect.flips
            assert row[ob.F_EMPTIES] == effect.empties
            assert row[ob.F_CARDS] == np.float32(len(effect.cards) / 13)
            assert row[ob.F_TO_EMPTY] == (effect.dest_column >= 0 and view.tableau[effect.dest_column].top < 0)
            safe = effect.to_foundation and is_safe_to_foundation(effect.cards[0], view.foundations)
            assert row[ob.F_SAFE_HOME] == safe
            source = view.tableau[effect.source_column] if effect.source_column >= 0 else None
            uncovers = (source is not None and len(effect.cards) < len(source.face_up)
                        and view.fits_foundation(source.face_up[-len(effect.cards) - 1]))
            assert row[ob.F_UNCOVERS_HOME] == uncovers
            for slot in seen:
                seen[slot] += int(row[slot])
    assert all(count > 0 for count in seen.values()), seen  # every feature was exercised


# --- observation_dtype="uint8": the integer numerators -----------------------------------
def random_positions(count: int, seed: int, rules: Rules | None = None) -> list[Game]:
    """``count`` positions of random play (openings to late games), under ``rules`` or every variant in turn."""
    rng = np.random.default_rng(seed)
    games = []
    for index in range(count):
        game = Game.new(int(rng.integers(0, 2**63)), rules or ALL_RULES[index % len(ALL_RULES)])
        for _ in random_playout(game, rng, int(rng.integers(0, 300))):
            pass
        games.append(game)
    return games


@pytest.mark.parametrize("mode", OBSERVATION_MODES)
def test_uint8_numerators_divided_give_the_float32_observation_bit_for_bit(mode):
    divisors = ob.observation_divisors(mode)
    assert divisors.dtype == np.float32 and divisors.shape == (observation_size(mode),)
    for game in random_positions(150, seed=OBSERVATION_MODES.index(mode)):
        values, numerators = observe(game, mode), observe(game, mode, dtype="uint8")
        assert numerators.dtype == np.uint8 and numerators.max() <= 24
        rebuilt = numerators.astype(np.float32) / divisors
        assert np.array_equal(rebuilt.view(np.uint32), values.view(np.uint32))  # bit for bit
        assert np.array_equal(np.rint(values * divisors), numerators)  # and every numerator is used


def test_the_divisors_are_the_documented_ones():
    divisors = ob.observation_divisors("full+actions")
    assert list(divisors[:17]) == [6] * 7 + [13] * 4 + [24, 24, 24, 1, 1, 10]
    planes = divisors[ob.NUM_SCALARS:observation_size("full")].reshape(22, 52)
    assert set(planes[ob.P_TALON_ORDER]) == {24} and set(planes[ob.P_DEPTH]) == {19}
    assert set(np.delete(planes, [ob.P_TALON_ORDER, ob.P_DEPTH], axis=0).ravel()) == {1}
    features = divisors[observation_size("full"):].reshape(87, ob.ACTION_FEATURES)
    assert set(features[:, ob.F_CARDS]) == {13}
    assert set(np.delete(features, ob.F_CARDS, axis=1).ravel()) == {1}
    # every k / d the float32 kernels write (np.float32 of the float64 quotient) is the
    # float32 division of k by d: dividing uint8 numerators is exact for any position
    for d in (1, 6, 10, 13, 19, 24):
        for k in range(25):
            assert np.float32(k) / np.float32(d) == np.float32(k / d), (k, d)


def test_uint8_space_batch_and_strided_arrays():
    games = random_positions(12, seed=8, rules=Rules(draw_count=1, max_passes=2))
    states = np.stack([game._state for game in games])
    for mode in OBSERVATION_MODES:
        space = observation_space(mode, "uint8")
        assert space == ob.spaces.Box(0, 255, (observation_size(mode),), np.uint8)
        singles = np.stack([observe(game, mode, "uint8") for game in games])
        assert all(space.contains(row) for row in singles)
        batch = np.zeros((len(games), observation_size(mode)), np.uint8)
        masks = np.stack([game.action_mask() for game in games]).astype(np.int8)
        ob.encode_batch(states, games[0]._rules_array, masks, ob.mode_id(mode), batch)
        assert np.array_equal(batch, singles)
        # a strided (non-contiguous) array gets the same numbers
        strided = np.zeros(2 * observation_size(mode), np.uint8)[::2]
        ob.encode(games[3]._state, games[3]._rules_array, masks[3], ob.mode_id(mode), strided)
        assert np.array_equal(strided, singles[3])


@pytest.mark.parametrize("dtype", ["float64", "int8", "f4x", None])
def test_unknown_dtype_is_a_one_line_error(dtype):
    with pytest.raises(ValueError, match=r"^bad observation_dtype .*: allowed are 'float32', 'uint8'$"):
        observe(Game.new(0), "information", dtype)


@pytest.mark.parametrize("player", ["information", "information+actions", "visible", "visible+actions"])
def test_full_suffix_appends_the_full_planes_to_the_player_observation(player):
    mode = player + ob.FULL_SUFFIX
    assert ob.player_part(mode) == player and ob.player_part(player) == player
    assert ob.reveals_hidden_cards(mode) and not ob.reveals_hidden_cards(player)
    assert observation_size(mode) == observation_size(player) + observation_size("full")
    for game in random_positions(40, seed=21):
        for dtype in ("float32", "uint8"):
            combined = observe(game, mode, dtype)
            assert np.array_equal(combined, np.concatenate([observe(game, player, dtype), observe(game, "full", dtype)]))
            padded = ob.pad_player_observation(observe(game, player, dtype), mode)
            assert padded.dtype == combined.dtype and padded.shape == combined.shape
            assert np.array_equal(padded[:observation_size(player)], combined[:observation_size(player)])
            assert not padded[observation_size(player):].any()
    with pytest.raises(ValueError, match="unknown observation mode 'full\\+full'"):
        ob.player_part("full+full")
