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

FINETUNE_TIMESTEPS = 10_000
"""PPO fine-tuning steps after the behaviour cloning, the same for every env: the budget of the
shipped checkpoints (``docs/baselines.md``), a few CPU minutes per run with the evaluation.
From scratch (``--hp bc_games=0``) give ``--timesteps`` a budget such as the registry's
``GameSpec.train_timesteps`` (the tasks' recommended budget)."""

DEFAULT_TIMESTEPS = {
    spec.gym_id: FINETUNE_TIMESTEPS for spec in sorted(game_specs(), key=lambda s: s.gym_id)
}
"""Default budget of :func:`train` per env (``tabletop-gym train`` without ``--timesteps``)."""

DEFAULT_HPARAMS: dict[str, Any] = {
    "learning_rate": 1e-4,
    "lr_schedule": "linear",
    "n_steps": 256,
    "batch_size": 256,
    "n_epochs": 4,
    "gamma": 1.0,
    "gae_lambda": 0.95,
    "ent_coef": 0.001,
    "net_arch": [256, 256],
    "obs_scaling": "log",
    "clip_range": 0.1,
    "bc_games": 1000,
    "bc_epochs": 30,
    "bc_lr": 1e-3,
}
"""MaskablePPO settings of :func:`train` (any may be overridden with ``hparams``): the settings
of the shipped checkpoints. Before PPO, the policy is cloned from the heuristic bot's decisions
in ``bc_games`` seeded games (``bc_epochs`` passes, Adam at ``bc_lr`` decaying to a tenth) and
the value head fitted to those games' returns (:func:`behaviour_clone`); ``bc_games=0`` trains
from scratch. PPO then fine-tunes with a small learning rate, clip range and entropy bonus, so
its first updates refine the clone rather than undo it. The rewards are terminal, so there is
nothing to discount (``gamma=1``); counts are log-scaled
(:class:`tabletop_gym.agents.ppo.LogScaledExtractor`); the learning rate decays linearly to the
end of the budget."""

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
    import torch
    from sb3_contrib import MaskablePPO

    import tabletop_gym  # noqa: F401 - registers the env ids
    from tabletop_gym.integrations.sb3 import make_vec_env

    if env_id not in GAME_OF:
        raise ValueError(f"unknown env {env_id!r}; choose one of {sorted(GAME_OF)}")
    torch.set_num_threads(1)
    env_kwargs = {**DEFAULT_ENV_KWARGS.get(env_id, {}), **(env_kwargs or {})}
    timesteps = int(timesteps or DEFAULT_TIMESTEPS[env_id])
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = pathlib.Path(out) / f"{env_id}-{stamp}-s{seed}"
    run_dir.mkdir(parents=True, exist_ok=True)

    hp = {**DEFAULT_HPARAMS, **(hparams or {})}
    unknown = sorted(set(hp) - set(DEFAULT_HPARAMS))
    if unknown:
        raise ValueError(f"unknown hparams {unknown}; allowed: {sorted(DEFAULT_HPARAMS)}")
    vec = make_vec_env(env_id, n_envs=n_envs, seed=seed, env_kwargs=env_kwargs)
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
        clip_range=float(hp["clip_range"]),
        policy_kwargs=policy_kwargs,
        seed=seed,
        device="cpu",
        verbose=0,
    )
    bc: dict[str, Any] = {}
    cpu0 = time.process_time()
    if int(hp["bc_games"]) > 0:
        t_bc = time.perf_counter()
        data = teacher_dataset(env_id, env_kwargs, games=int(hp["bc_games"]), seed=seed)
        bc = behaviour_clone(model, data, epochs=int(hp["bc_epochs"]), lr=float(hp["bc_lr"]),
                             seed=seed)
        bc["seconds"] = round(time.perf_counter() - t_bc, 1)
        del data
        if verbose:
            print(f"behaviour cloning of the heuristic: {bc}", flush=True)
    curve: list[tuple[int, float]] = []
    t0 = time.perf_counter()
    model.learn(total_timesteps=timesteps,
                callback=_make_callback(curve, None if time_limit is None else t0 + time_limit),
                progress_bar=progress_bar)
    seconds = time.perf_counter() - t0
    cpu_seconds = time.process_time() - cpu0
    timesteps = int(model.num_timesteps)
    model_path = run_dir / "model.zip"
    model.save(model_path)
    _save_curve(curve, run_dir, f"MaskablePPO on {env_id}")

    game = GAME_OF[env_id]
    cfg = _game_config(env_id, env_kwargs)
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
        "cpu_seconds": round(cpu_seconds, 1),
        "behaviour_cloning": bc,
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


def teacher_dataset(env_id: str, env_kwargs: dict[str, Any] | None = None, games: int = 1000,
                    seed: int = 0, teacher: str = "heuristic") -> dict[str, np.ndarray]:
    """Decisions of ``teacher`` in every seat over ``games`` seeded games, for behaviour cloning.

    Each record is what the learner would see in that seat (the flat observation and the mask,
    read through the seat's own view), the teacher's action, and the seat's final return under
    the game's ``reward_type`` (what the env pays the learner, the target of the value head).
    Deals are ``1_000_000 + 100_000 * seed + i``, apart from every evaluation's deals.

    Args:
        env_id: A registered id (its game and config, from ``env_kwargs`` less the wrapper's).
        env_kwargs: Env kwargs (wrapper kwargs are ignored: the teacher plays every seat).
        games: Games to play.
        seed: Seeds the deals and the teacher's own generator.
        teacher: Agent spec of the teacher (``"heuristic"``, ``"ismcts:…"``).

    Returns:
        ``obs`` (int16: the observations hold small integer counts), ``mask`` (bool),
        ``action`` (int64) and ``ret`` (float32) arrays, one row per decision.
    """
    from tabletop_gym.agents.base import choose_action, make_agent
    from tabletop_gym.evaluation import _raw_env_factory

    game = GAME_OF[env_id]
    cfg = _game_config(env_id, env_kwargs or {})
    env = _raw_env_factory(game)(**cfg)
    rng = np.random.default_rng(seed)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    seats: list[int] = []
    rets: list[float] = []
    for i in range(games):
        env.reset(seed=1_000_000 + 100_000 * seed + i)
        bots = {name: make_agent(teacher, env.game, env.observer, rng)
                for name in env.possible_agents}
        start = len(actions)
        while not env.game_state.is_terminal():
            name = env.agent_selection
            seen = env.observe(name)
            action = choose_action(bots[name], env, name)
            obs.append(seen["observation"].astype(np.int16))
            masks.append(seen["action_mask"].astype(bool))
            actions.append(action)
            seats.append(env.seat_of(name))
            env.step(action)
        final = env.game_state.returns()
        rets.extend(float(final[s]) for s in seats[start:])
    return {"obs": np.stack(obs), "mask": np.stack(masks),
            "action": np.asarray(actions, dtype=np.int64), "ret": np.asarray(rets, np.float32)}


def behaviour_clone(model: Any, data: dict[str, np.ndarray], epochs: int = 8, lr: float = 1e-3,
                    batch_size: int = 256, seed: int = 0) -> dict[str, float]:
    """Fit ``model``'s policy to the teacher's actions and its value head to the returns.

    The loss is the masked policy's negative log-likelihood of the teacher's action plus half the
    squared error of the value (the same value scale PPO then trains), so PPO fine-tuning starts
    from the teacher's play with a critic that already knows what positions are worth; a random
    critic would make the first advantages noise and undo the cloning.

    Returns:
        The final epoch's mean loss and the share of decisions (with more than one legal action)
        where the greedy policy picks the teacher's action.
    """
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    n = len(data["action"])
    gen = torch.Generator().manual_seed(seed)
    obs = torch.as_tensor(data["obs"])
    mask = torch.as_tensor(data["mask"])
    act = torch.as_tensor(data["action"])
    ret = torch.as_tensor(data["ret"])
    loss_sum = 0.0
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        loss_sum, batches = 0.0, 0
        for k in range(0, n, batch_size):
            idx = order[k : k + batch_size]
            for group in opt.param_groups:  # decay to a tenth over the epochs
                group["lr"] = lr * (1.0 - 0.9 * (epoch * n + k) / (epochs * n))
            values, log_prob, _ = policy.evaluate_actions(obs[idx].float(), act[idx],
                                                          action_masks=mask[idx])
            loss = -log_prob.mean() + 0.5 * torch.mean((values.flatten() - ret[idx]) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += float(loss.detach())
            batches += 1
        loss_sum /= max(batches, 1)
    policy.set_training_mode(False)
    choice = mask.sum(dim=1) > 1
    with torch.no_grad():
        agree = []
        for k in range(0, n, 4096):
            dist = policy.get_distribution(obs[k : k + 4096].float(),
                                           action_masks=mask[k : k + 4096])
            greedy = dist.distribution.probs.argmax(dim=1)
            agree.append((greedy == act[k : k + 4096])[choice[k : k + 4096]])
    return {"loss": round(loss_sum, 4), "agreement": round(float(torch.cat(agree).float().mean()),
                                                           4), "decisions": n}


def _game_config(env_id: str, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The game config of ``env_id`` under ``env_kwargs`` (the wrapper's kwargs left out)."""
    cfg = {k: v for k, v in env_kwargs.items() if k not in WRAPPER_KWARGS}
    cfg.setdefault("num_players", game_spec(GAME_OF[env_id]).single_agent_defaults["num_players"])
    return cfg
