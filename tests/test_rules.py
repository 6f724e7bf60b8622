"""The rule options (docs/contract.md "Rules"): defaults, validation, the kernels' array."""

import numpy as np
import pytest

from klondike_env import Rules, core


def test_defaults_are_standard_draw3():
    rules = Rules()
    assert (rules.draw_count, rules.max_passes, rules.empty_column, rules.foundation_to_tableau) == (3, None, "king", True)
    assert rules.as_array().tolist() == [3, 0, 0, 1]


def test_as_array_layout():
    array = Rules(draw_count=1, max_passes=2, empty_column="any", foundation_to_tableau=False).as_array()
    assert array.dtype == np.int32 and array.shape == (core.RULES_SIZE,)
    assert array[core.RULE_DRAW_COUNT] == 1
    assert array[core.RULE_MAX_PASSES] == 2
    assert array[core.RULE_EMPTY_ANY] == 1
    assert array[core.RULE_FOUNDATION_TO_TABLEAU] == 0


@pytest.mark.parametrize("option, value, allowed", [
    ("draw_count", 2, "1 and 3"),
    ("draw_count", 3.0, "1 and 3"),
    ("draw_count", True, "1 and 3"),
    ("max_passes", 0, "None .* or a positive integer"),
    ("max_passes", -2, "None .* or a positive integer"),
    ("max_passes", 2.5, "None .* or a positive integer"),
    ("empty_column", "queen", "'king' and 'any'"),
    ("empty_column", None, "'king' and 'any'"),
    ("foundation_to_tableau", "yes", "True and False"),
    ("foundation_to_tableau", 1, "True and False"),
])
def test_bad_option_names_option_and_allowed_values(option, value, allowed):
    with pytest.raises(ValueError, match=f"bad rules option {option}=.*allowed values are {allowed}"):
        Rules(**{option: value})


def test_from_options_names_unknown_keys():
    assert Rules.from_options({"draw_count": 1}, max_passes=3) == Rules(draw_count=1, max_passes=3)
    assert Rules.from_options(None) == Rules()
    with pytest.raises(ValueError, match="unknown rules option 'passes': allowed options are draw_count, "
                                         "empty_column, foundation_to_tableau, max_passes"):
        Rules.from_options({"passes": 3})


def test_numpy_values_are_stored_as_plain_python():
    rules = Rules(draw_count=np.int64(1), max_passes=np.int32(2), foundation_to_tableau=np.bool_(False))
    assert rules == Rules(draw_count=1, max_passes=2, foundation_to_tableau=False)
    assert hash(rules) == hash(Rules(draw_count=1, max_passes=2, foundation_to_tableau=False))
    assert type(rules.draw_count) is int and type(rules.max_passes) is int
    assert type(rules.foundation_to_tableau) is bool


def test_huge_max_passes_is_unlimited_for_the_kernels():
    assert Rules(max_passes=2**40).as_array()[core.RULE_MAX_PASSES] == 0


def test_rules_are_immutable():
    with pytest.raises(AttributeError):
        Rules().draw_count = 1
