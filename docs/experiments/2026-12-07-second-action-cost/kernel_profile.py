"""Which compiled functions the world solves spend their time in: a sampling profile of the
determinized agent's solver call on the worlds of ``klondike bench-worlds``.

Needs Linux ``perf`` (Debian: ``apt-get install linux-perf``) and a fresh numba cache, so that the
kernels are compiled in this process and their addresses are known:

    export NUMBA_CACHE_DIR=$(mktemp -d)
    python docs/experiments/2026-12-07-second-action-cost/kernel_profile.py solve &
    while [ ! -f kernel_profile.pid ]; do sleep 1; done
    perf record -F 2999 -p "$(cat kernel_profile.pid)" -o kernel_profile.data -- sleep 20
    wait
    perf script -i kernel_profile.data -F ip > kernel_profile.ips
    python docs/experiments/2026-12-07-second-action-cost/kernel_profile.py report

``solve`` warms up on the 296 worlds, writes ``kernel_profile.pid``, solves them over and over for
25 s, then writes the address of every compiled function of ``klondike_env`` (each caller's library
holds its own copy of the functions it calls and does not inline) to
``kernel_profile.functions.json``. ``report`` attributes each sample to the function whose code
starts nearest below it and prints each function's share of the samples.
"""

from __future__ import annotations

import bisect
import collections
import json
import os
import sys
import time

FUNCTIONS, PID, IPS = "kernel_profile.functions.json", "kernel_profile.pid", "kernel_profile.ips"


def solve_for_a_while(seconds: float = 25.0) -> None:
    from numba.core.registry import CPUDispatcher

    from klondike_app.bench_worlds import CONFIGS, sample_worlds
    from klondike_env.solver import solve

    worlds = [world for _, _, world in sample_worlds(1001, 20, 4, 300, 0)]
    options = CONFIGS["determinized"]
    for world in worlds:
        solve(world, **options)
    with open(PID, "w") as out:
        out.write(str(os.getpid()))
    start = time.time()
    while time.time() - start < seconds:
        for world in worlds:
            solve(world, **options)
    functions = set()
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("klondike_env"):
            continue
        for name, value in vars(module).items():
            if not isinstance(value, CPUDispatcher):
                continue
            for result in value.overloads.values():
                library = result.library
                functions.add((library.get_pointer_to_function(result.fndesc.llvm_func_name),
                               f"{module.__name__}.{name}"))
                for function in library._final_module.functions:  # the callees linked into it
                    if not function.is_declaration:
                        address = library.get_pointer_to_function(function.name)
                        if address:
                            functions.add((address, function.name))
    with open(FUNCTIONS, "w") as out:
        json.dump(sorted(functions), out)


def report() -> None:
    functions = json.load(open(FUNCTIONS))
    names: dict[int, str] = {}
    for address, name in functions:  # the readable name where one address has several
        if address not in names or not name.startswith("_Z"):
            names[address] = name
    starts = sorted(names)
    samples: collections.Counter = collections.Counter()
    total = 0
    for line in open(IPS):
        if not line.strip():
            continue
        ip = int(line.split()[0], 16)
        total += 1
        index = bisect.bisect_right(starts, ip) - 1
        near = index >= 0 and ip - starts[index] < 100_000
        samples[names[starts[index]].rsplit(".", 1)[-1] if near else "(outside the kernels)"] += 1
    for name, count in samples.most_common(12):
        print(f"{count / total * 100:6.1f}%  {name}")


if __name__ == "__main__":
    {"solve": solve_for_a_while, "report": report}[sys.argv[1]]()
