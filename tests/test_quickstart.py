"""The README's main command (klondike quickstart), end to end on a tiny config: train, evaluate
three agents, compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import klondike

ROOT = Path(__file__).resolve().parent.parent


def test_quickstart_trains_evaluates_and_compares(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert klondike("quickstart", "--config", ROOT / "configs/tiny.yaml", "--seeds", "1-2", "--workers", "1",
                    "--runs-dir", tmp_path) == 0
    out = capsys.readouterr().out
    assert "total_timesteps" not in out and "| time/" not in out  # no SB3 tables without --verbose
    (run_dir,) = tmp_path.iterdir()
    summaries = sorted((run_dir / "1-2").glob("*.json"))
    assert len(summaries) == 3 and (run_dir / "1-2" / "compare.png").is_file()
    agents = {json.loads(path.read_text())["agent"].split(":")[0] for path in summaries}
    assert agents == {"random", "greedy", "policy"}
    assert "| random |" in out and "| greedy |" in out and "| policy:" in out
    # the three agents played the same deals: three pairs in the paired table
    paired = out.split("Same deals, paired by deal:")[1]
    assert sum(line.count("| 1-2 |") for line in paired.splitlines()) == 3


def quickstart_main():
    return lambda argv: klondike("quickstart", *argv)


def test_quickstart_bad_config_is_one_line(tmp_path, capsys):
    main = quickstart_main()
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntrain: {total_timestep: 10}\n")
    assert main(["--config", str(bad), "--runs-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("klondike quickstart: error:") and "total_timestep" in err and "\n" not in err


@pytest.mark.parametrize("args, message", [
    (["--seeds", "abc"], "unknown seed set 'abc'"),
    (["--config", str(ROOT / "models/ppo_draw3_actions_bc/model.zip")], "model.zip' is not a text file"),
    (["--runs-dir", "FILE/runs"], "bad --runs-dir"),
])
def test_quickstart_checks_its_input_before_training(args, message, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    runs = tmp_path / "runs"
    argv = ["--config", str(ROOT / "configs/tiny.yaml"), "--runs-dir", str(runs)]
    assert quickstart_main()(argv + [arg.replace("FILE", str(blocker)) for arg in args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("klondike quickstart: error:") and message in err and "\n" not in err
    assert not runs.exists()  # no run folder: nothing was trained


def test_quickstart_refuses_zero_workers_before_training(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        quickstart_main()(["--config", str(ROOT / "configs/tiny.yaml"), "--workers", "0", "--runs-dir", str(tmp_path / "runs")])
    assert stop.value.code == 2 and "argument --workers: expected an integer >= 1, got 0" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("flags, tables", [([], False), (["--verbose"], True)])
def test_quickstart_shows_a_progress_bar_and_the_tables_only_with_verbose(flags, tables, tmp_path, monkeypatch, capsys):
    import agents.training.config as config_module

    import agents.training.run as run_module

    asked = {}

    def fake_train(config, **options):
        asked.update(options)
        raise config_module.ConfigError("stopped by the test")

    monkeypatch.setattr(run_module, "train", fake_train)
    assert klondike("quickstart", *["--config", str(ROOT / "configs/tiny.yaml"), "--runs-dir", str(tmp_path), *flags]) == 2
    assert asked["tables"] is tables and asked["progress_bar"] is not tables
