"""Script of the experiment record docs/experiments/2026-12-02-symmetric-refinement-and-logit-bias.md (written for the code of commit 7c92696): direct search of per-move-kind logit biases for the committed policy's
argmax + breaker win rate on training deals (coordinate search), then save the tuned model.

    python docs/experiments/2026-12-02-symmetric-refinement-and-logit-bias/bias_search.py FIRST LAST OUT_DIR

4000 deals take about a minute per candidate on 2 cores."""
import sys, time, shutil, numpy as np, torch
from multiprocessing import get_context
from klondike_env import core

MODEL = "models/ppo_draw3_privileged_critic"  # run from the repository root
KINDS = {"draw": [core.DRAW], "recycle": [core.RECYCLE], "waste_home": [core.WASTE_TO_FOUNDATION],
         "waste_column": list(range(core.WASTE_TO_COLUMN, core.COLUMN_TO_FOUNDATION)),
         "column_home": list(range(core.COLUMN_TO_FOUNDATION, core.COLUMN_TO_COLUMN)),
         "column_column": list(range(core.COLUMN_TO_COLUMN, core.FOUNDATION_TO_COLUMN)),
         "home_column": list(range(core.FOUNDATION_TO_COLUMN, core.NUM_ACTIONS))}
_model = _env = None


def init():
    global _model, _env
    from sb3_contrib import MaskablePPO
    from agents.training.config import load_config
    torch.set_num_threads(1)
    _model = MaskablePPO.load(f"{MODEL}/model.zip", device="cpu")
    _env = load_config(f"{MODEL}/config.yaml", [])["env"]


def bias_vector(biases):
    vector = np.zeros(core.NUM_ACTIONS, np.float32)
    for kind, value in biases.items():
        vector[KINDS[kind]] = value
    return vector


def play(job):
    from agents.training.evaluation import play_deals
    deals, biases = job
    extra = torch.tensor(bias_vector(biases))
    policy = _model.policy

    def predict(obs, masks):
        with torch.no_grad():
            x = torch.as_tensor(obs, dtype=torch.float32)
            logits = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(x, policy.pi_features_extractor)))
            logits = (logits + extra).numpy()
        return np.argmax(np.where(masks, logits, -np.inf), axis=1)

    records = play_deals(predict, deals, {**_env, "max_episode_steps": 1000, "no_progress_steps": None}, no_repeat=True)
    return [r.won for r in records]


def wins(pool, deals, biases):
    halves = [deals[0::2], deals[1::2]]
    return sum(sum(part) for part in pool.map(play, [(h, biases) for h in halves]))


if __name__ == "__main__":
    first, last, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    deals = list(range(first, last + 1))
    with get_context("fork").Pool(2, init) as pool:
        start = time.time()
        biases = {kind: 0.0 for kind in KINDS}
        best = wins(pool, deals, biases)
        print("start", best, round(time.time() - start), "s", flush=True)
        for sweep in range(2):
            changed = False
            for kind in KINDS:
                results = {}
                for delta in (-1.5, -0.5, 0.5, 1.5):
                    trial = {**biases, kind: biases[kind] + delta}
                    results[delta] = wins(pool, deals, trial)
                    print(f"sweep {sweep + 1} {kind} {trial[kind]:+.1f}: {results[delta]}", flush=True)
                delta = max(results, key=results.get)
                if results[delta] >= best + len(deals) // 200:  # half a point: a margin against noise
                    biases[kind] += delta
                    best = results[delta]
                    changed = True
                    print(f"  kept {kind} {biases[kind]:+.1f} -> {best}", flush=True)
            if not changed:
                break
        print("final", biases, best, flush=True)
    init()
    with torch.no_grad():
        _model.policy.action_net.bias += torch.tensor(bias_vector(biases))
    import os
    os.makedirs(out, exist_ok=True)
    _model.save(f"{out}/model.zip")
    shutil.copy(f"{MODEL}/config.yaml", f"{out}/config.yaml")
    print("saved", out)
