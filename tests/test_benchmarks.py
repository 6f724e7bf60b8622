"""The benchmark sections' own logic on tiny inputs (their figures come from `klondike bench`)."""

from klondike_app.benchmarks import solver as solver_benchmark


def test_the_solver_section_reports_both_thread_counts_and_checks_every_verdict(monkeypatch):
    monkeypatch.setattr(solver_benchmark, "QUICK", {"deals": range(2, 5), "time_limit": 5.0, "pyksolve_closed": 1000})
    text = solver_benchmark.run(quick=True)
    rows = [line for line in text.splitlines() if line.startswith("| klondike_env.solve")]
    assert len(rows) == 2 and "(threads=2)" in rows[1]
    assert all("3/3 (100.0%)" in row and "solutions failing replay: 0" in row for row in rows)
    assert "threads=1: none; threads=2: none" in text
    assert "Verdicts in conflict (SOLVED vs UNSOLVABLE): 0" in text


def test_bench_worlds_dumps_every_solve_and_checks_a_dump(tmp_path, capsys):
    from conftest import klondike

    dump = tmp_path / "worlds.json"
    options = ("--worlds", 4, "--deals", 2, "--repeat", 1, "--configs", "class1000,class1000-status")
    assert klondike("bench-worlds", *options, "--dump", dump) == 0
    assert klondike("bench-worlds", *options, "--check", dump) == 0
    out = capsys.readouterr().out
    assert "4 worlds from deals 1001-1002" in out and "class1000-status" in out
    assert out.rstrip().endswith("0 differing solves")
    assert klondike("bench-worlds", "--configs", "nope") == 2
