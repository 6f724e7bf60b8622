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

``annotate NAME`` (after ``report``'s steps) disassembles the compiled function ``NAME`` (e.g.
``_mark_later_boundaries``; ``solve`` keeps each function's machine code in
``kernel_profile.code/``) with ``objdump`` and prints its most sampled instructions, each with the
instructions before it: a sample lands on the instruction after one that stalls, so a cache miss
shows as the samples on the instruction after a load from the table.
"""

from __future__ import annotations

import bisect
import collections
import json
import os
import subprocess
import sys
import time

FUNCTIONS, PID, IPS = "kernel_profile.functions.json", "kernel_profile.pid", "kernel_profile.ips"
CODE = "kernel_profile.code"
CODE_BYTES = 40_000  # more than any kernel's machine code


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
    os.makedirs(CODE, exist_ok=True)
    with open("/proc/self/mem", "rb", buffering=0) as memory:
        for address in {address for address, _ in functions}:
            with open(os.path.join(CODE, f"{address:x}.bin"), "wb") as out:
                out.write(_readable(memory, address))


def _readable(memory, address: int) -> bytes:
    """Up to ``CODE_BYTES`` of this process's memory from ``address``, stopping where the mapping
    ends (read through /proc/self/mem, which fails there instead of crashing the process)."""
    code = b""
    page = 4096
    while len(code) < CODE_BYTES:
        try:
            chunk = os.pread(memory.fileno(), page - (address + len(code)) % page, address + len(code))
        except OSError:
            break
        if not chunk:
            break
        code += chunk
    return code[:CODE_BYTES]


def _samples() -> tuple[dict[int, str], list[tuple[int, int, str]]]:
    """The functions' readable names by address, and each sample as (address, function start, name)."""
    functions = json.load(open(FUNCTIONS))
    names: dict[int, str] = {}
    for address, name in functions:  # the readable name where one address has several
        if address not in names or not name.startswith("_Z"):
            names[address] = name
    starts = sorted(names)
    samples = []
    for line in open(IPS):
        if not line.strip():
            continue
        ip = int(line.split()[0], 16)
        index = bisect.bisect_right(starts, ip) - 1
        near = index >= 0 and ip - starts[index] < 100_000
        name = names[starts[index]].rsplit(".", 1)[-1] if near else "(outside the kernels)"
        samples.append((ip, starts[index] if near else 0, name))
    return names, samples


def report() -> None:
    _, samples = _samples()
    counts = collections.Counter(name for _, _, name in samples)
    for name, count in counts.most_common(12):
        print(f"{count / len(samples) * 100:6.1f}%  {name}")


def annotate(name: str, top: int = 6, before: int = 8) -> None:
    _, samples = _samples()
    mine = [(ip, start) for ip, start, sample_name in samples if sample_name == name]
    if not mine:
        raise SystemExit(f"no samples in {name}")
    start = collections.Counter(start for _, start in mine).most_common(1)[0][0]  # its busiest copy
    hits = collections.Counter(ip for ip, copy in mine if copy == start)
    listing = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", f"--adjust-vma={start}",
                              os.path.join(CODE, f"{start:x}.bin")], capture_output=True, text=True, check=True)
    lines = [line for line in listing.stdout.splitlines() if line[:1] == " " and ":" in line]
    where = {int(line.split(":")[0], 16): index for index, line in enumerate(lines)}
    print(f"{name}: {len(mine)} samples, {sum(hits.values())} in the copy at {start:x}")
    for ip, count in hits.most_common(top):
        print(f"--- {count / len(mine) * 100:.1f}% of {name}'s samples on the last line")
        index = where.get(ip)
        for line in lines[max(0, index - before): index + 1] if index is not None else []:
            print("   ", line.strip()[:100])


if __name__ == "__main__":
    if sys.argv[1] == "annotate":
        annotate(sys.argv[2])
    else:
        {"solve": solve_for_a_while, "report": report}[sys.argv[1]]()
