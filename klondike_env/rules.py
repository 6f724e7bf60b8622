"""The rule options (docs/contract.md "Rules"), validated once, as the kernels' array."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from klondike_env import core

EMPTY_COLUMN_RULES = ("king", "any")


def _is_integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Rules:
    """Variant options of Klondike. The defaults are standard draw-3, unlimited passes.

    * ``draw_count``: cards turned per draw, 3 or 1.
    * ``max_passes``: trips through the stock (``max_passes - 1`` recycles), or ``None``
      for unlimited.
    * ``empty_column``: ``"king"`` (only a king or a king-led run) or ``"any"``.
    * ``foundation_to_tableau``: whether a foundation's top card may come back down.
    """

    draw_count: int = 3
    max_passes: int | None = None
    empty_column: str = "king"
    foundation_to_tableau: bool = True

    def __post_init__(self):
        if not _is_integer(self.draw_count) or self.draw_count not in (1, 3):
            raise ValueError(f"bad rules option draw_count={self.draw_count!r}: allowed values are 1 and 3")
        if self.max_passes is not None and (not _is_integer(self.max_passes) or self.max_passes < 1):
            raise ValueError(
                f"bad rules option max_passes={self.max_passes!r}: allowed values are None (unlimited) "
                "or a positive integer"
            )
        if not isinstance(self.empty_column, str) or self.empty_column not in EMPTY_COLUMN_RULES:
            raise ValueError(
                f"bad rules option empty_column={self.empty_column!r}: allowed values are 'king' and 'any'"
            )
        if not isinstance(self.foundation_to_tableau, (bool, np.bool_)):
            raise ValueError(
                f"bad rules option foundation_to_tableau={self.foundation_to_tableau!r}: allowed values are True and False"
            )
        # store plain Python values so equal rules compare and hash equal whatever types came in
        object.__setattr__(self, "draw_count", int(self.draw_count))
        if self.max_passes is not None:
            object.__setattr__(self, "max_passes", int(self.max_passes))
        object.__setattr__(self, "foundation_to_tableau", bool(self.foundation_to_tableau))

    @classmethod
    def from_options(cls, options: dict | None = None, **kwargs) -> "Rules":
        """Build from a mapping, naming any unknown key in the error."""
        merged = dict(options or {}, **kwargs)
        names = {field.name for field in fields(cls)}
        for key in merged:
            if key not in names:
                raise ValueError(f"unknown rules option {key!r}: allowed options are {', '.join(sorted(names))}")
        return cls(**merged)

    def as_array(self) -> np.ndarray:
        """The compact array the compiled kernels take."""
        rules = np.zeros(core.RULES_SIZE, np.int32)
        rules[core.RULE_DRAW_COUNT] = self.draw_count
        # more passes than an int32 holds is as good as unlimited (0)
        rules[core.RULE_MAX_PASSES] = 0 if self.max_passes is None or self.max_passes >= 2**31 else self.max_passes
        rules[core.RULE_EMPTY_ANY] = 1 if self.empty_column == "any" else 0
        rules[core.RULE_FOUNDATION_TO_TABLEAU] = 1 if self.foundation_to_tableau else 0
        return rules
