"""The searches' large arrays (klondike_env.solver.memory): zeroed, writable, alive as long as a view."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize("keep", [False, True])
def test_search_arrays_are_zeroed_writable_and_survive_their_mapping(keep):
    import gc

    from klondike_env.solver.memory import search_array

    array = search_array((3000, 4), np.int64, keep=keep)
    assert array.shape == (3000, 4) and array.dtype == np.int64 and array.flags.c_contiguous
    assert not array.any()
    array[-1, -1] = 7
    view = array[2999]
    del array
    gc.collect()
    assert view[-1] == 7  # the view keeps the mapping alive
    assert search_array(0, np.int32).shape == (0,)


def test_a_kept_table_is_zeroed_and_a_solve_on_it_is_the_same_twice():
    from klondike_env.solver import solve
    from klondike_env.solver.table import Table

    assert not Table(1024).keys.any()
    first, second = solve(7, node_limit=20_000), solve(7, node_limit=20_000)
    assert (first.status, first.nodes, first.actions) == (second.status, second.nodes, second.actions)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_worker_writes_its_own_copy_of_a_table():
    """The arrays are private mappings: a forked worker's searches never write into its parent's
    (or a sibling's) table, and Linux gives private anonymous memory huge pages (shared memory
    only where shmem huge pages are on, which they are not by default)."""
    import os

    from klondike_env.solver.memory import search_array

    array = search_array(4096, np.int64, keep=True)
    child = os.fork()
    if child == 0:
        array[:] = 1
        os._exit(0)
    os.waitpid(child, 0)
    assert not array.any()
