"""Training curves from a run's TensorBoard events, as one PNG."""

from __future__ import annotations

from pathlib import Path

# (tag, panel title, y label); absent tags are skipped
PANELS = (
    (("klondike/win_rate", "eval/win_rate"), "win rate", "fraction of games won"),
    (("klondike/foundation_cards", "eval/foundation_cards"), "foundation cards at the end", "cards"),
    (("klondike/truncated_rate", "klondike/dead_rate"), "how training games end", "fraction"),
    (("klondike/env_steps_per_s", "klondike/rollout_steps_per_s", "time/fps"), "throughput", "env steps / s"),
)
LABELS = {
    "klondike/win_rate": "training games (sampled actions)",
    "eval/win_rate": "validation deals",
    "klondike/foundation_cards": "training games",
    "eval/foundation_cards": "validation deals",
    "klondike/truncated_rate": "truncated",
    "klondike/dead_rate": "dead",
    "klondike/env_steps_per_s": "env step alone",
    "klondike/rollout_steps_per_s": "rollout (env + policy)",
    "time/fps": "overall incl. updates (run average)",
}


class PlotError(ValueError):
    pass


def read_scalars(run_dir: str | Path) -> dict[str, tuple[list[int], list[float]]]:
    """Every scalar of the run's ``tb/`` events (all event files, in step order)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    files = sorted(Path(run_dir, "tb").glob("events.out.tfevents.*"))
    if not files:
        raise PlotError(f"{run_dir} has no TensorBoard events (expected {Path(run_dir, 'tb')}/events.out.tfevents.*)")
    points: dict[str, dict[int, float]] = {}
    for path in files:
        accumulator = EventAccumulator(str(path), size_guidance={"scalars": 0})
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            for event in accumulator.Scalars(tag):
                points.setdefault(tag, {})[event.step] = event.value
    return {tag: (sorted(values), [values[s] for s in sorted(values)]) for tag, values in points.items()}


def plot_run(run_dir: str | Path, out: str | Path | None = None, title: str | None = None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scalars = read_scalars(run_dir)
    out = Path(out) if out else Path(run_dir) / "training.png"
    figure, axes = plt.subplots(2, 2, figsize=(11, 7), constrained_layout=True)
    for axis, (tags, panel_title, ylabel) in zip(axes.flat, PANELS):
        for tag in tags:
            if tag in scalars:
                steps, values = scalars[tag]
                style = "o-" if tag.startswith("eval/") else "-"
                axis.plot(steps, values, style, markersize=3, label=LABELS.get(tag, tag))
        axis.set_title(panel_title)
        axis.set_xlabel("env steps")
        axis.set_ylabel(ylabel)
        if panel_title == "throughput":
            axis.set_yscale("log")
        axis.grid(alpha=0.3)
        if axis.lines:
            axis.legend(fontsize=8)
    figure.suptitle(title or Path(run_dir).name)
    figure.savefig(out, dpi=100)
    plt.close(figure)
    return out


def run_summary(run_dir: str | Path) -> str:
    """One line: steps, wall time, median throughputs, last and best validation win rates."""
    import statistics

    scalars = read_scalars(run_dir)

    def median(tag):
        return statistics.median(scalars[tag][1]) if tag in scalars else float("nan")

    steps = max(scalars["time/fps"][0]) if "time/fps" in scalars else 0
    parts = [
        f"{steps:,} env steps",
        f"median steps/s: overall {median('time/fps'):,.0f}, rollout {median('klondike/rollout_steps_per_s'):,.0f}, "
        f"env step alone {median('klondike/env_steps_per_s'):,.0f}",
    ]
    if "eval/win_rate" in scalars:
        eval_steps, rates = scalars["eval/win_rate"]
        best = max(range(len(rates)), key=lambda i: rates[i])
        parts.append(f"validation win rate: last {rates[-1]:.1%} at {eval_steps[-1]:,}, "
                     f"best {rates[best]:.1%} at {eval_steps[best]:,}")
    return "; ".join(parts)
