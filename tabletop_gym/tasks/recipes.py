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
import sys
import time
from typing import Any, TextIO

import numpy as np

from tabletop_gym.agents.base import with_hints
from tabletop_gym.arena.evaluation import EvalResult, evaluate, format_table, save_results
from tabletop_gym.provenance import metadata
from tabletop_gym.registry import default_game, game_spec, game_specs
from tabletop_gym.wrappers.single_agent import WRAPPER_KWARGS

FINETUNE_TIMESTEPS = 300_000
"""PPO steps after the warm-up for an env :data:`ENV_TIMESTEPS` does not name. Without the hint
(``--hp hint=false``, a plain MLP policy) give ``--timesteps`` a budget such as the registry's
``GameSpec.train_timesteps`` (the tasks' recommended budget)."""

ENV_TIMESTEPS = {spec.gym_id: spec.benchmark.recipe.timesteps for spec in game_specs()
                 if spec.benchmark.recipe.timesteps is not None}
"""PPO budgets of the recipes that need more (each game's ``benchmark.recipe.timesteps``): solo
Positano's gain over the heuristic appears between 300,000 and 1,000,000 steps
(``docs/training.md``), about 15 CPU minutes."""

DEFAULT_TIMESTEPS = {
    spec.gym_id: ENV_TIMESTEPS.get(spec.gym_id, FINETUNE_TIMESTEPS)
    for spec in sorted(game_specs(), key=lambda s: s.gym_id)
}
"""Default budget of :func:`train` per env (``tabletop-gym train`` and ``make train`` without
``--timesteps``): the budget of the shipped checkpoints (``docs/baselines.md``)."""

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
    "bc_games": 300,
    "bc_epochs": 5,
    "bc_lr": 1e-3,
    "teacher": "heuristic",
    "hint": True,
    "hint_weight": 3.0,
    "bc_target": "value",
    "gain_unit": 0.02,
    "gain_margin": 0.0,
}
"""MaskablePPO settings of :func:`train` (any may be overridden with ``hparams``): with an env's
:data:`ENV_HPARAMS`, the settings of its shipped checkpoint (:func:`recipe`).

With ``hint`` the policy is a residual policy over the heuristic bot
(:class:`tabletop_gym.agents.ppo.HintedPolicy`): besides the seat's own observation it reads the
move the heuristic would play from that same observation, and its logits start as
``hint_weight`` on that move and about 0 elsewhere. So PPO starts from the heuristic's play
(sampling other moves now and then, which is its exploration) and learns where leaving it pays.
Before PPO, ``bc_games`` seeded games of the heuristic in every seat fit the value head to their
returns (``bc_target="value"``, ``bc_epochs`` passes, Adam at ``bc_lr`` decaying to a tenth;
:func:`behaviour_clone`), so the first advantages are not noise. ``bc_target="action"`` also
clones ``teacher``'s moves (``"heuristic"`` or a search such as ``"ismcts:12:guided"``), and
``"gain"`` regresses the logits on a guided search's estimated gains (``gain_unit``,
``gain_margin``): in solo Positano neither beat the value-only warm-up, in Rapa Nui the gain
regression does and is its recipe (``docs/training.md``). ``bc_games=0``
skips the warm-up; ``hint=False`` is a plain MLP policy (cloned with ``bc_target="action"``).
PPO fine-tunes with a small learning rate, clip range and entropy bonus. The rewards are
terminal, so there is nothing to discount (``gamma=1``); counts are log-scaled
(:class:`tabletop_gym.agents.ppo.LogScaledExtractor`); the learning rate decays linearly to the
end of the budget."""

DEFAULT_ENV_KWARGS: dict[str, dict[str, Any]] = {
    spec.gym_id: dict(spec.benchmark.recipe.env_kwargs) for spec in game_specs()
    if spec.benchmark.recipe.env_kwargs}
"""Env kwargs used unless given (each game's ``benchmark.recipe.env_kwargs``): a multi-player
learner takes every seat in turn, as the evaluation seats it."""

GAME_OF = {spec.gym_id: spec.name for spec in game_specs()}
"""Gymnasium id -> game name, for every registered game."""


ENV_HPARAMS: dict[str, dict[str, Any]] = {
    spec.gym_id: dict(spec.benchmark.recipe.hparams) for spec in game_specs()
    if spec.benchmark.recipe.hparams}
"""Where an env's recipe departs from :data:`DEFAULT_HPARAMS` (the recipe :func:`train` uses
unless ``hparams`` says otherwise; :func:`recipe` merges the two).

``RapaNui-v0``: before PPO, the residual policy regresses on the gain estimates of the guided
search ``ismcts:24:guided`` over 200 games of the heuristic in every seat (``bc_target="gain"``,
10 passes): each move's logit over the heuristic's move is fitted to the search's estimate of
its mean gain less a margin of 0.02, so the greedy policy leaves the heuristic's move where the
fitted gain exceeds the margin. The labels take about 23 CPU minutes (``docs/training.md``).
In Rapa Nui PPO from the heuristic alone does not leave it profitably (its deviations lose on
average and it learns to follow the hint), while the search's paired estimates, averaged by the
regression over similar positions, show where leaving it pays."""


def recipe(env_id: str) -> dict[str, Any]:
    """The settings :func:`train` uses for ``env_id`` when ``hparams`` overrides nothing.

    Raises:
        ValueError: When ``env_id`` is not a registered id.
    """
    if env_id not in GAME_OF:
        raise ValueError(f"unknown env {env_id!r}; choose one of {sorted(GAME_OF)}")
    return {**DEFAULT_HPARAMS, **ENV_HPARAMS.get(env_id, {})}


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


class ProgressLines:
    """A progress line every ``every`` of the budget, for output that is not a terminal.

    SB3's progress bar is drawn only on a terminal; a log file or CI would show nothing for
    the whole run. Each line says the steps done, the share of the budget, the rate and the
    time left at that rate.

    Args:
        total: The budget in steps.
        out: Where the lines go.
        every: The share of the budget between two lines.
    """

    def __init__(self, total: int, out: TextIO, every: float = 0.05):
        self.total = max(1, int(total))
        self.out = out
        self.step = max(1, int(self.total * every))
        self.next = self.step
        self.t0 = time.perf_counter()

    def update(self, done: int) -> None:
        """Print a line if ``done`` steps passed the next mark (at most one line per call)."""
        if done < self.next:
            return
        self.next = (done // self.step + 1) * self.step
        seconds = time.perf_counter() - self.t0
        rate = done / seconds if seconds > 0 else 0.0
        left = (self.total - done) / rate if rate > 0 else 0.0
        share = min(100, 100 * done // self.total)
        self.out.write(f"progress: {done:,}/{self.total:,} steps ({share} %), "
                       f"{rate:,.0f} steps/s, {seconds:,.0f} s elapsed, "
                       f"about {max(0.0, left):,.0f} s left\n")
        self.out.flush()


def _make_callback(curve: list[tuple[int, float]], deadline: float | None = None,
                   lines: ProgressLines | None = None) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    class CurveCallback(BaseCallback):
        """Collects (timestep, episode return) of every finished episode; stops at the deadline."""

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("episode")
                if ep is not None:
                    curve.append((self.num_timesteps, float(ep["r"])))
            if lines is not None:
                lines.update(self.num_timesteps)
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
    env_id: str | None = None,
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
    teacher_data: dict[str, np.ndarray] | None = None,
) -> TrainResult:
    """Train ``MaskablePPO`` on ``env_id`` and evaluate it.

    Args:
        env_id: A registered id (``"Positano-v0"``, ``"RapaNui-v0"``; default: the Gymnasium id
            of the game whose benchmark block is the default for ``"sb3"``).
        timesteps: Training budget (default: :data:`DEFAULT_TIMESTEPS`).
        seed: Seed of the model and the environments.
        out: Parent folder of the run folder.
        n_envs: Parallel environments in the (in-process) vector env.
        eval_games: Games per evaluation matchup (at least 200 for the published numbers).
        progress_bar: Show progress: SB3's progress bar on a terminal, otherwise a line
            every 5 % of the budget (:class:`ProgressLines`).
        env_kwargs: Extra keyword arguments of the env (player count, opponents, variants).
        verbose: Print the evaluation table.
        hparams: Overrides of the env's :func:`recipe` (:data:`DEFAULT_HPARAMS` with the env's
            :data:`ENV_HPARAMS`): ``lr_schedule`` is ``"constant"`` or
            ``"linear"`` (decays to 0 at the end of the budget); ``obs_scaling`` is ``"none"`` or
            ``"log"`` (:class:`tabletop_gym.agents.ppo.LogScaledExtractor`).
        time_limit: Stop training after this many seconds of wall time even if the budget is not
            spent (a linear learning-rate schedule then decays by whichever of steps and time is
            further along). ``eval_games=0`` skips the evaluation.
        teacher_data: The cloning data already computed: what :func:`teacher_dataset` returns
            for this env, ``env_kwargs``, ``bc_games``, ``seed`` and ``teacher`` (it is
            deterministic, so this only saves recomputing a search teacher's labels).
    """
    import torch
    from sb3_contrib import MaskablePPO

    from tabletop_gym.integrations.sb3 import make_vec_env

    if env_id is None:
        env_id = game_spec(default_game("sb3")).gym_id
    hp = {**recipe(env_id), **(hparams or {})}  # recipe() refuses an unknown env
    unknown = sorted(set(hp) - set(DEFAULT_HPARAMS))
    if unknown:
        raise ValueError(f"unknown hparams {unknown}; allowed: {sorted(DEFAULT_HPARAMS)}")
    if not isinstance(hp["hint"], bool):
        raise ValueError(f"hint={hp['hint']!r}; choose true or false")
    torch.set_num_threads(1)
    env_kwargs = {**DEFAULT_ENV_KWARGS.get(env_id, {}), **(env_kwargs or {})}
    timesteps = int(timesteps or DEFAULT_TIMESTEPS[env_id])
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = pathlib.Path(out) / f"{env_id}-{stamp}-s{seed}"
    run_dir.mkdir(parents=True, exist_ok=True)
    hint = hp["hint"]
    vec: Any = make_vec_env(env_id, n_envs=n_envs, seed=seed, env_kwargs=env_kwargs)
    if hint:
        from tabletop_gym.agents.ppo import HintVecEnv

        vec = HintVecEnv(vec, seed=seed)
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
    policy: Any = "MlpPolicy"
    if hint:
        from tabletop_gym.agents.ppo import HintedPolicy

        policy = HintedPolicy
        policy_kwargs["hint_weight"] = float(hp["hint_weight"])
    if hp["obs_scaling"] == "log":
        from tabletop_gym.agents.ppo import LogScaledExtractor

        policy_kwargs["features_extractor_class"] = LogScaledExtractor
    elif hp["obs_scaling"] != "none":
        raise ValueError(f"obs_scaling={hp['obs_scaling']!r}; choose 'none' or 'log'")
    model = MaskablePPO(
        policy,
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
        data = dict(teacher_data) if teacher_data is not None else teacher_dataset(
            env_id, env_kwargs, games=int(hp["bc_games"]), seed=seed, teacher=str(hp["teacher"]))
        if hint:
            data["obs"] = with_hints(data["obs"], data["hint"], int(vec.action_space.n))
        bc = behaviour_clone(model, data, epochs=int(hp["bc_epochs"]), lr=float(hp["bc_lr"]),
                             seed=seed, target=str(hp["bc_target"]),
                             gain_unit=float(hp["gain_unit"]),
                             gain_margin=float(hp["gain_margin"]))
        bc["seconds"] = round(time.perf_counter() - t_bc, 1)
        del data
        if verbose:
            print(f"behaviour cloning ({hp['bc_target']}) from {hp['teacher']}: {bc}",
                  flush=True)
    curve: list[tuple[int, float]] = []
    # SB3 draws its bar only on a terminal; elsewhere (a log, CI) a line every 5 %.
    terminal = sys.stdout.isatty()
    lines = ProgressLines(timesteps, sys.stdout) if progress_bar and not terminal else None
    t0 = time.perf_counter()
    model.learn(total_timesteps=timesteps,
                callback=_make_callback(curve, None if time_limit is None else t0 + time_limit,
                                        lines),
                progress_bar=progress_bar and lines is None)
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

    The games are played by the heuristic bot in every seat (the policy a hinted learner starts
    as, :class:`tabletop_gym.agents.ppo.HintedPolicy`); at each decision the teacher is asked
    what it would play there. With ``teacher="heuristic"`` the label is the move played. Each
    record is what the learner would see in that seat (the flat observation and the mask, read
    through the seat's own view), the heuristic's move there (the hint), the teacher's action,
    and the seat's final return under the game's ``reward_type`` (what the env pays the learner,
    the target of the value head). Deals are ``1_000_000 + 100_000 * seed + i``, apart from every
    evaluation's deals.

    Args:
        env_id: A registered id (its game and config, from ``env_kwargs`` less the wrapper's).
        env_kwargs: Env kwargs (wrapper kwargs are ignored: the heuristic plays every seat).
        games: Games to play.
        seed: Seeds the deals and the agents' own generators.
        teacher: Agent spec of the teacher (``"heuristic"``, ``"ismcts:…"``); a search teacher
            is asked only where there is a choice (one legal action is its own label).

    Returns:
        ``obs`` (int16: the observations hold small integer counts), ``mask`` (bool),
        ``hint`` and ``action`` (int64), ``ret`` (float32) arrays, one row per decision, and
        ``gain`` (float32, one column per action): where a guided search teacher weighed the
        moves, its estimate of each candidate's mean gain in value over the heuristic's move
        (:attr:`tabletop_gym.agents.ismcts.ISMCTSAgent.last_gains`), NaN elsewhere.
    """
    from tabletop_gym.agents.base import choose_action
    from tabletop_gym.agents.kinds import make_agent
    from tabletop_gym.arena.envs import raw_env_factory

    game = GAME_OF[env_id]
    cfg = _game_config(env_id, env_kwargs or {})
    env = raw_env_factory(game)(**cfg)
    rng = np.random.default_rng(seed)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    hints: list[int] = []
    gains: list[np.ndarray] = []
    actions: list[int] = []
    seats: list[int] = []
    rets: list[float] = []
    for i in range(games):
        env.reset(seed=1_000_000 + 100_000 * seed + i)
        bots = {name: make_agent("heuristic", env.game, env.observer, rng)
                for name in env.possible_agents}
        labels = None if teacher == "heuristic" else {
            name: make_agent(teacher, env.game, env.observer, rng) for name in env.possible_agents}
        start = len(actions)
        while not env.game_state.is_terminal():
            name = env.agent_selection
            seen = env.observe(name)
            action = choose_action(bots[name], env, name)
            label = action
            gain = np.full(seen["action_mask"].size, np.nan, dtype=np.float32)
            if labels is not None and int(seen["action_mask"].sum()) > 1:
                label = choose_action(labels[name], env, name)
                for a, g in getattr(labels[name], "last_gains", {}).items():
                    gain[a] = g
            obs.append(seen["observation"].astype(np.int16))
            masks.append(seen["action_mask"].astype(bool))
            hints.append(action)
            gains.append(gain)
            actions.append(label)
            seats.append(env.seat_of(name))
            env.step(action)
        final = env.game_state.returns()
        rets.extend(float(final[s]) for s in seats[start:])
    return {"obs": np.stack(obs), "mask": np.stack(masks),
            "hint": np.asarray(hints, dtype=np.int64), "gain": np.stack(gains),
            "action": np.asarray(actions, dtype=np.int64), "ret": np.asarray(rets, np.float32)}


def behaviour_clone(model: Any, data: dict[str, np.ndarray], epochs: int = 8, lr: float = 1e-3,
                    batch_size: int = 256, seed: int = 0, target: str = "action",
                    gain_unit: float = 0.02, gain_margin: float = 0.0) -> dict[str, float]:
    """Fit ``model``'s policy to the teacher and its value head to the returns.

    With ``target="action"`` the policy loss is the masked negative log-likelihood of the
    teacher's action. With ``target="gain"`` (a hinted policy and a guided search teacher, whose
    ``gain`` columns the data holds) it is a regression of the logits instead: at every decision
    the search weighed, each legal move's logit minus the heuristic's move's logit is fitted
    (Huber loss) to the search's estimate of that move's mean gain over the heuristic's move, less
    ``gain_margin``, in units of ``gain_unit`` (clipped to ±8); a legal move it did not weigh keeps
    the heuristic's lead of ``-8``. One search's estimates are noisy (a few paired rollouts), but
    their errors average out over similar positions, so the greedy policy leaves the heuristic's
    move only where the fitted mean gain over it exceeds the margin: a learned one-step
    improvement of the heuristic. The cloned imitation of a noisy argmax (``"action"``) instead
    copies the search's chance switches too.

    With ``target="value"`` the policy is left as it is (a hinted policy starts as the
    heuristic already) and only the value head is fitted.

    Every way half the squared error of the value is added (the same value scale PPO then
    trains), so PPO fine-tuning starts with a critic that already knows what positions are worth;
    a random critic would make the first advantages noise and undo the cloning.

    Returns:
        The final epoch's mean loss and the share of decisions (with more than one legal action)
        where the greedy policy picks the teacher's action; with hints, how often the greedy
        policy and the teacher leave the heuristic's move.
    """
    import torch

    if target not in ("action", "gain", "value"):
        raise ValueError(f"target={target!r}; choose 'action', 'gain' or 'value'")
    policy = model.policy
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    n = len(data["action"])
    gen = torch.Generator().manual_seed(seed)
    obs = torch.as_tensor(data["obs"])
    mask = torch.as_tensor(data["mask"])
    act = torch.as_tensor(data["action"])
    ret = torch.as_tensor(data["ret"])
    if target == "gain":
        hint = torch.as_tensor(data["hint"])
        gain = torch.as_tensor(data["gain"])
        rows = torch.arange(n)
        # gains relative to the hinted move; rows where the search did not weigh it: no target
        rel = gain - gain[rows, hint].unsqueeze(1)
        weighed = torch.isfinite(gain[rows, hint]) & (torch.isfinite(gain).sum(dim=1) > 1)
        want = torch.where(torch.isfinite(rel), ((rel - gain_margin) / gain_unit).clamp(-8, 8),
                           torch.full_like(rel, -8.0))
        want[rows, hint] = 0.0
        legal = mask & weighed.unsqueeze(1)
    loss_sum = 0.0
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        loss_sum, batches = 0.0, 0
        for k in range(0, n, batch_size):
            idx = order[k : k + batch_size]
            for group in opt.param_groups:  # decay to a tenth over the epochs
                group["lr"] = lr * (1.0 - 0.9 * (epoch * n + k) / (epochs * n))
            if target == "action":
                values, log_prob, _ = policy.evaluate_actions(obs[idx].float(), act[idx],
                                                              action_masks=mask[idx])
                policy_loss = -log_prob.mean()
            elif target == "value":
                values = policy.predict_values(obs[idx].float())
                policy_loss = torch.zeros(())
            else:
                features = policy.extract_features(obs[idx].float(), policy.features_extractor)
                latent_pi, latent_vf = policy.mlp_extractor(features)
                values = policy.value_net(latent_vf)
                logits = policy.action_net(latent_pi)
                diff = logits - logits[torch.arange(len(idx)), hint[idx]].unsqueeze(1)
                err = torch.nn.functional.huber_loss(diff, want[idx], reduction="none")
                sel = legal[idx]
                policy_loss = (err * sel).sum() / sel.sum().clamp_min(1)
            loss = policy_loss + 0.5 * torch.mean((values.flatten() - ret[idx]) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += float(loss.detach())
            batches += 1
        loss_sum /= max(batches, 1)
    policy.set_training_mode(False)
    choice = mask.sum(dim=1) > 1
    with torch.no_grad():
        greedy = torch.cat([
            policy.get_distribution(obs[k : k + 4096].float(), action_masks=mask[k : k + 4096])
            .distribution.probs.argmax(dim=1) for k in range(0, n, 4096)])
    out = {"loss": round(loss_sum, 4),
           "agreement": round(float((greedy == act)[choice].float().mean()), 4), "decisions": n}
    if "hint" in data:  # how often the greedy policy, and the teacher, leave the heuristic's move
        hint = torch.as_tensor(data["hint"])
        out["leaves_hint"] = round(float((greedy != hint)[choice].float().mean()), 4)
        out["teacher_leaves_hint"] = round(float((act != hint)[choice].float().mean()), 4)
    return out


def _game_config(env_id: str, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The game config of ``env_id`` under ``env_kwargs`` (the wrapper's kwargs left out)."""
    cfg = {k: v for k, v in env_kwargs.items() if k not in WRAPPER_KWARGS}
    cfg.setdefault("num_players", game_spec(GAME_OF[env_id]).single_agent_defaults["num_players"])
    return cfg
