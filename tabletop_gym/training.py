"""Training with sb3-contrib's ``MaskablePPO`` on any registered single-agent env.

``make train`` runs :func:`train` on ``Positano-v0`` (the solo game against Otto Amalfi) with the
default budget, then evaluates the trained agent against the random and heuristic baselines over
at least 200 games, prints the table and saves the model, the evaluation (CSV and JSON), the
learning curve (CSV and PNG) under ``runs/``.

Needs the ``train`` extra (``pip install tabletop-gym[train]``).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import time
from typing import Any

import numpy as np

from tabletop_gym.evaluation import EvalResult, evaluate, format_table, save_results
from tabletop_gym.provenance import metadata
from tabletop_gym.registry import game_spec, game_specs
from tabletop_gym.wrappers.single_agent import WRAPPER_KWARGS

DEFAULT_TIMESTEPS = {
    spec.gym_id: spec.train_timesteps for spec in sorted(game_specs(), key=lambda s: s.gym_id)
}
"""Budgets that finish in about 10 minutes on 2 CPU cores, evaluation included."""

DEFAULT_HPARAMS: dict[str, Any] = {
    "learning_rate": 3e-4,
    "lr_schedule": "linear",
    "n_steps": 256,
    "batch_size": 256,
    "n_epochs": 4,
    "gamma": 1.0,
    "gae_lambda": 0.95,
    "ent_coef": 0.01,
    "net_arch": [256, 256],
    "obs_scaling": "log",
}
"""MaskablePPO settings of :func:`train` (any may be overridden with ``hparams``): the settings
of the shipped checkpoints. The rewards are terminal, so there is nothing to discount
(``gamma=1``); counts are log-scaled (:class:`tabletop_gym.agents.ppo.LogScaledExtractor`); the
learning rate decays linearly to the end of the budget."""

DEFAULT_ENV_KWARGS: dict[str, dict[str, Any]] = {"RapaNui-v0": {"seat_mode": "rotate"}}
"""Env kwargs used unless given: a multi-player learner takes every seat in turn, as the
evaluation seats it."""

GAME_OF = {spec.gym_id: spec.name for spec in game_specs()}
"""Gymnasium id -> game name, for every registered game."""


@dataclasses.dataclass
class TrainResult:
    """What a training run produced.

    Attributes:
        run_dir: Folder with the model, evaluation and learning curve.
        timesteps: Environment steps trained.
        seconds: Wall time of the training loop.
        steps_per_second: Training throughput.
        evaluations: Evaluation results (trained vs random, trained vs heuristic, and the
            heuristic vs random baseline).
    """

    run_dir: pathlib.Path
    timesteps: int
    seconds: float
    steps_per_second: float
    evaluations: list[EvalResult]


def _make_callback(curve: list[tuple[int, float]], deadline: float | None = None) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    class CurveCallback(BaseCallback):
        """Collects (timestep, episode return) of every finished episode; stops at the deadline."""

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("episode")
                if ep is not None:
                    curve.append((self.num_timesteps, float(ep["r"])))
            return deadline is None or time.perf_counter() < deadline

    return CurveCallback()


def _save_curve(curve: list[tuple[int, float]], run_dir: pathlib.Path, title: str) -> None:
    lines = ["timestep,episode_return"] + [f"{t},{r}" for t, r in curve]
    (run_dir / "learning_curve.csv").write_text("\n".join(lines) + "\n")
    if not curve:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = np.array([t for t, _ in curve])
    rets = np.array([r for _, r in curve])
    window = max(1, len(rets) // 50)
    smooth = np.convolve(rets, np.ones(window) / window, mode="valid")
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, rets, ".", alpha=0.15, ms=2, label="episode return")
    ax.plot(steps[window - 1 :], smooth, lw=2, label=f"moving mean ({window} episodes)")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("episode return")
    ax.set_title(title)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(run_dir / "learning_curve.png", dpi=100)
    plt.close(fig)


def train(
    env_id: str = "Positano-v0",
    timesteps: int | None = None,
    seed: int = 0,
    out: str | pathlib.Path = "runs",
    n_envs: int = 8,
    eval_games: int = 200,
    progress_bar: bool = True,
    env_kwargs: dict[str, Any] | None = None,
    verbose: bool = True,
    hparams: dict[str, Any] | None = None,
    time_limit: float | None = None,
) -> TrainResult:
    """Train ``MaskablePPO`` on ``env_id`` and evaluate it.

    Args:
        env_id: A registered id (``"Positano-v0"``, ``"RapaNui-v0"``).
        timesteps: Training budget (default: :data:`DEFAULT_TIMESTEPS`).
        seed: Seed of the model and the environments.
        out: Parent folder of the run folder.
        n_envs: Parallel environments in the (in-process) vector env.
        eval_games: Games per evaluation matchup (at least 200 for the published numbers).
        progress_bar: Show SB3's progress bar.
        env_kwargs: Extra keyword arguments of the env (player count, opponents, variants).
        verbose: Print the evaluation table.
        hparams: Overrides of :data:`DEFAULT_HPARAMS`: ``lr_schedule`` is ``"constant"`` or
            ``"linear"`` (decays to 0 at the end of the budget); ``obs_scaling`` is ``"none"`` or
            ``"log"`` (:class:`tabletop_gym.agents.ppo.LogScaledExtractor`).
        time_limit: Stop training after this many seconds of wall time even if the budget is not
            spent (a linear learning-rate schedule then decays by whichever of steps and time is
            further along). ``eval_games=0`` skips the evaluation.
    """
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    import tabletop_gym  # noqa: F401 - registers the env ids

    if env_id not in GAME_OF:
        raise ValueError(f"unknown env {env_id!r}; choose one of {sorted(GAME_OF)}")
    torch.set_num_threads(1)
    env_kwargs = {**DEFAULT_ENV_KWARGS.get(env_id, {}), **(env_kwargs or {})}
    timesteps = int(timesteps or DEFAULT_TIMESTEPS[env_id])
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = pathlib.Path(out) / f"{env_id}-{stamp}-s{seed}"
    run_dir.mkdir(parents=True, exist_ok=True)

    def factory() -> gymnasium.Env:
        return gymnasium.make(env_id, **env_kwargs)

    hp = {**DEFAULT_HPARAMS, **(hparams or {})}
    unknown = sorted(set(hp) - set(DEFAULT_HPARAMS))
    if unknown:
        raise ValueError(f"unknown hparams {unknown}; allowed: {sorted(DEFAULT_HPARAMS)}")
    vec = make_vec_env(factory, n_envs=n_envs, seed=seed, vec_env_cls=DummyVecEnv)
    lr0 = float(hp["learning_rate"])
    t0 = time.perf_counter()
    if hp["lr_schedule"] == "linear":
        def learning_rate(progress_remaining: float) -> float:
            if time_limit:
                left = 1.0 - (time.perf_counter() - t0) / time_limit
                progress_remaining = min(progress_remaining, left)
            return lr0 * max(progress_remaining, 0.02)
    elif hp["lr_schedule"] == "constant":
        learning_rate = lr0  # type: ignore[assignment]
    else:
        raise ValueError(f"lr_schedule={hp['lr_schedule']!r}; choose 'constant' or 'linear'")
    policy_kwargs: dict[str, Any] = {"net_arch": list(hp["net_arch"])}
    if hp["obs_scaling"] == "log":
        from tabletop_gym.agents.ppo import LogScaledExtractor

        policy_kwargs["features_extractor_class"] = LogScaledExtractor
    elif hp["obs_scaling"] != "none":
        raise ValueError(f"obs_scaling={hp['obs_scaling']!r}; choose 'none' or 'log'")
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        learning_rate=learning_rate,
        n_steps=int(hp["n_steps"]),
        batch_size=int(hp["batch_size"]),
        n_epochs=int(hp["n_epochs"]),
        gamma=float(hp["gamma"]),
        gae_lambda=float(hp["gae_lambda"]),
        ent_coef=float(hp["ent_coef"]),
        policy_kwargs=policy_kwargs,
        seed=seed,
        device="cpu",
        verbose=0,
    )
    curve: list[tuple[int, float]] = []
    t0 = time.perf_counter()
    model.learn(total_timesteps=timesteps,
                callback=_make_callback(curve, None if time_limit is None else t0 + time_limit),
                progress_bar=progress_bar)
    seconds = time.perf_counter() - t0
    timesteps = int(model.num_timesteps)
    model_path = run_dir / "model.zip"
    model.save(model_path)
    _save_curve(curve, run_dir, f"MaskablePPO on {env_id}")

    game = GAME_OF[env_id]
    cfg = {k: v for k, v in env_kwargs.items() if k not in WRAPPER_KWARGS}
    cfg.setdefault("num_players", game_spec(game).single_agent_defaults["num_players"])
    results = []
    if eval_games > 0:
        results = [
            evaluate(game, model, "random", n_games=eval_games, seed=10_000 + seed, **cfg),
            evaluate(game, model, "heuristic", n_games=eval_games, seed=20_000 + seed, **cfg),
            evaluate(game, "heuristic", "random", n_games=eval_games, seed=30_000 + seed, **cfg),
        ]
        results[0].candidate = results[1].candidate = "MaskablePPO"
        save_results(results, run_dir / "evaluation")
    summary = {
        "metadata": metadata(env_id=env_id, seed=seed, timesteps=timesteps),
        "env_id": env_id,
        "env_kwargs": env_kwargs,
        "timesteps": timesteps,
        "seed": seed,
        "hparams": hp,
        "train_seconds": round(seconds, 1),
        "timesteps_per_second": round(timesteps / seconds, 1),
        "evaluation": [r.row() for r in results],
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    if verbose:
        print(f"\ntrained {timesteps} timesteps in {seconds:.0f} s "
              f"({timesteps / seconds:.0f} timesteps/s); run folder: {run_dir}")
        if results:
            print(format_table(results))
    return TrainResult(run_dir, timesteps, seconds, timesteps / seconds, results)


def ship_checkpoint(model_path: str | pathlib.Path, dest: str | pathlib.Path) -> pathlib.Path:
    """Copy a trained model to ``dest`` without its optimizer moments (a third of the size).

    Playing needs only the policy weights; the Adam moments are reset to an empty state, so the
    zip stays small and still loads with ``MaskablePPO.load`` (training resumes with a fresh
    optimizer).
    """
    import torch
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(model_path, device="cpu")
    policy = model.policy
    policy.optimizer = type(policy.optimizer)(policy.parameters(),
                                              **policy.optimizer.defaults)
    torch.set_num_threads(1)
    out = pathlib.Path(dest)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    return out
