"""``tabletop-gym suite train``: one agent per (task, seed) by a pinned recipe, then scored.

A **recipe** is a named, versioned way to train an agent on a task from scratch: which trainer,
which opponents it trains against, its settings and its budget. ``suite train`` runs a recipe
once per (task, training seed), scores each trained agent on its task with the suite protocol
(every evaluation seed, the task's protocol deals, :func:`tabletop_gym.tasks.runner.run_suite`)
and writes, under ``OUT/<recipe>/<task>/seed-<s>/``:

* the checkpoint and the trainer's own files (its ``summary.json`` with the CPU seconds);
* ``result.json``: the task's results row (score, interval, normalised score per evaluation
  seed), the recipe, its version and budget, the training seed and the CPU seconds, and on a
  multi-player task the agent's scores against the held-out population
  (:mod:`tabletop_gym.tasks.held_out`).

A finished (task, seed) is never trained again (its ``result.json`` is the mark), so a run can
be stopped and resumed, here or on another machine with the folder copied. ``OUT/<recipe>/
results.json`` gathers every finished row into one suites results file whose runs are the
training seeds: the aggregate IQM and its stratified bootstrap interval are over
(training seed, task).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tabletop_gym.provenance import metadata
from tabletop_gym.tasks import SUITES, Task, held_out, suite_tasks
from tabletop_gym.tasks.runner import aggregate, load_references, run_suite, write_results

TRAIN_FORMAT = "tabletop-gym-suite-train"
TRAIN_FORMAT_VERSION = 1


@dataclasses.dataclass(frozen=True)
class Recipe:
    """A pinned way to train an agent on a task from scratch.

    Attributes:
        name: The ``--algo`` name.
        version: Bumped by any change of what the recipe trains or how.
        description: One line for the docs and the results.
        timesteps: Learner steps per (task, seed) unless ``--timesteps`` says otherwise.
        train: ``train(task, seed, out_dir, timesteps, overrides) -> (agent, info)``: trains,
            saves into ``out_dir`` and returns the agent to score and what to record;
            ``overrides`` change the recipe's settings (tests and quick looks only: a row
            trained with overrides is marked so and is not the recipe's).
        load: ``load(out_dir) -> agent``: the saved agent again (scoring a resumed run).
        checkpoint: The file in ``out_dir`` that ``load`` reads.
        extra: The package extras that training needs (checked before anything is trained).
        unit: What the budget ``timesteps`` counts.
        check: ``check(timesteps, overrides)`` raises ValueError on a budget or settings the
            recipe cannot train with (called before anything is trained or written).
    """

    name: str
    version: int
    description: str
    timesteps: int
    train: Callable[[Task, int, pathlib.Path, int, Mapping[str, Any]], tuple[Any, dict[str, Any]]]
    load: Callable[[pathlib.Path], Any]
    checkpoint: str
    extra: tuple[str, ...]
    unit: str = "learner steps"
    check: Callable[[int, Mapping[str, Any]], None] | None = None


def _sb3_env(task: Task) -> tuple[str, dict[str, Any]]:
    """The single-agent env SB3 trains on: the task's own, or for self-play against heuristics.

    SB3 trains one policy in one seat; a self-play task has no bots, so the recipe fills the
    other seats with the heuristic bot (one of the two tables the task is scored against).
    """
    from tabletop_gym.registry import game_spec

    opponents = task.opponents if task.opponents is not None else "heuristic"
    kwargs = {**task.config, **task.env_settings, "opponents": opponents,
              "seat_mode": task.seat_mode or "rotate", "learner_seat": 0}
    if task.mode == "solo":
        kwargs["opponents"] = "random"  # no other seat: never used
    return game_spec(task.game).gym_id, kwargs


SB3_SETTINGS: dict[str, Any] = {"hint": False, "bc_games": 0}
"""Overrides of :func:`tabletop_gym.tasks.recipes.recipe` for ``sb3-ppo``: a plain MLP
policy with no heuristic input and no warm-up (from scratch)."""


def _sb3_train(task: Task, seed: int, out_dir: pathlib.Path, timesteps: int,
               overrides: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    from tabletop_gym.tasks.recipes import train

    env_id, env_kwargs = _sb3_env(task)
    res = train(env_id=env_id, timesteps=timesteps, seed=seed, out=out_dir, n_envs=8,
                eval_games=0, progress_bar=False, env_kwargs=env_kwargs,
                hparams={**SB3_SETTINGS, **overrides}, verbose=False)
    model_path = res.run_dir / "model.zip"
    target = out_dir / "model.zip"
    model_path.replace(target)
    summary = json.loads((res.run_dir / "summary.json").read_text())
    info = {"timesteps": int(res.timesteps), "train_seconds": round(float(res.seconds), 1),
            "cpu_seconds": summary.get("cpu_seconds"), "env": env_id, "env_kwargs": env_kwargs,
            "hparams": summary.get("hparams"), "run_dir": res.run_dir.name}
    return _sb3_load(out_dir), info


def _sb3_load(out_dir: pathlib.Path) -> Any:
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(out_dir / "model.zip", device="cpu")


def jax_settings(task: Task, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The ``jax-ppo`` recipe's opponents for ``task``, with ``overrides`` on top.

    From scratch: against the heuristic distilled into a network on the tasks against the
    heuristic bot (JAX cannot run the Python bot inside the jit), else pure self-play, every
    seat the learner (solo: the learner alone against the automa). Self-play rather than a
    pool of frozen snapshots on the 4-player tasks: there every decision is a learner step,
    where a pool's learner makes one decision in four and the pool's networks play the rest,
    so a learner step costs about a quarter as much (version 2 used the pool).
    """
    if task.mode == "solo" or task.opponents != "heuristic":
        settings: dict[str, Any] = {"opponents": "self"}
    else:
        from tabletop_gym.jax.distill import shipped

        settings = {"opponents": "heuristic-net",
                    "opponent_net": str(shipped(task.game, task.num_players))}
    settings.update(overrides)
    if settings.get("opponents") != "heuristic-net":
        settings.pop("opponent_net", None)
    return settings


def _jax_train(task: Task, seed: int, out_dir: pathlib.Path, timesteps: int,
               overrides: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    from tabletop_gym.jax.train import TrainConfig, train

    settings = jax_settings(task, overrides)
    if "hidden" in settings:
        settings["hidden"] = tuple(settings["hidden"])
    config = TrainConfig(**settings)
    env_config = {k: v for k, v in task.config.items() if k != "num_players"}
    cpu0 = time.process_time()
    summary = train(task.game, task.num_players, config=config, seeds=1, seed=seed,
                    timesteps=timesteps, out=out_dir, eval_games=0, progress=False,
                    env_config=env_config, echo=lambda _line: None)
    cpu = time.process_time() - cpu0
    import jax

    target = out_dir / "policy.npz"
    pathlib.Path(summary["policy"]).replace(target)
    info = {"timesteps": int(summary["learner_steps_per_seed"][0]),
            "train_seconds": summary["seconds"], "cpu_seconds": round(cpu, 1),
            "compile_and_first_iteration_s": summary["compile_and_first_iteration_s"],
            "learner_steps_per_s": summary["learner_steps_per_s"],
            "settings": summary["train"], "run_dir": pathlib.Path(summary["run_dir"]).name,
            # Where it trained: a GPU run and a CPU run of one seed differ in float rounding.
            "jax_backend": jax.default_backend(), "device": jax.devices()[0].device_kind}
    return _jax_load(out_dir), info


def _jax_load(out_dir: pathlib.Path) -> Any:
    return f"jax:{out_dir / 'policy.npz'}"


BC_SETTINGS: dict[str, Any] = {"policy": "heuristic", "hidden": [256, 256], "epochs": 10}
"""The ``bc`` recipe's settings: whose games it clones, and the network and passes it fits."""
BC_FIRST_DEAL = 100_000
BC_DEALS_PER_SEED = 10_000
"""Training seed ``s`` clones games dealt by ``BC_FIRST_DEAL + BC_DEALS_PER_SEED * s + i``:
deals of their own per seed, none of them a deal the suite protocol (``1000 * s + j``) or the
held-out population (from 900,000) scores on."""


def _bc_check(timesteps: int, overrides: Mapping[str, Any]) -> None:
    """Refuse a budget outside a seed's block of deals, or settings the recipe does not have."""
    unknown = sorted(set(overrides) - set(BC_SETTINGS))
    if unknown:
        raise ValueError(f"unknown bc settings {unknown}; known: {sorted(BC_SETTINGS)}")
    if not 2 <= timesteps <= BC_DEALS_PER_SEED:
        raise ValueError(f"the bc recipe's budget is the games it clones, 2..{BC_DEALS_PER_SEED}"
                         f" (a seed's block of deals); got {timesteps}")


def _bc_train(task: Task, seed: int, out_dir: pathlib.Path, timesteps: int,
              overrides: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Play ``timesteps`` games of the heuristic bot in every seat, clone them, keep the policy.

    The games (megabytes) are removed once fitted: the seed's deals make them again, and their
    SHA-256 is recorded with the fit's accuracies.
    """
    import shutil

    from tabletop_gym.tasks.datasets.cloning import clone
    from tabletop_gym.tasks.datasets.games import write_games

    _bc_check(timesteps, overrides)
    settings = {**BC_SETTINGS, **overrides}
    first = BC_FIRST_DEAL + BC_DEALS_PER_SEED * seed
    # A run killed while playing leaves its partial games behind; they are this recipe's own
    # scratch, made again from the seed's deals, so a rerun starts them afresh.
    shutil.rmtree(out_dir / "games", ignore_errors=True)
    cpu0 = time.process_time()
    data = write_games(out_dir / "games", task.id, str(settings["policy"]), timesteps, seed=first)
    made = time.process_time() - cpu0
    cpu0 = time.process_time()
    report = clone(data, out_dir / "policy.npz", hidden=tuple(int(h) for h in settings["hidden"]),
                   epochs=int(settings["epochs"]), seed=seed)
    fitted = time.process_time() - cpu0
    info = {"games": data.num_games, "decisions": len(data), "first_deal": first,
            "dataset_sha256": data.manifest["files"][0]["sha256"],
            "settings": settings, "train_accuracy": round(report.train_accuracy, 4),
            "valid_accuracy": round(report.valid_accuracy, 4),
            "make_cpu_seconds": round(made, 1), "fit_cpu_seconds": round(fitted, 1),
            "cpu_seconds": round(made + fitted, 1)}
    shutil.rmtree(out_dir / "games")
    return _jax_load(out_dir), info


RECIPES: dict[str, Recipe] = {
    "sb3-ppo": Recipe(
        "sb3-ppo", 2,
        "sb3-contrib MaskablePPO from scratch (plain MLP, no heuristic input, no warm-up) in the "
        "task's single-agent env; on self-play tasks against heuristic bots",
        100_000, _sb3_train, _sb3_load, "model.zip", ("train",)),
    "jax-ppo": Recipe(
        "jax-ppo", 3,
        "tabletop_gym.jax.train masked PPO from scratch on the batched engine (2x64; against the "
        "distilled heuristic on tasks against the heuristic, else pure self-play; solo: alone "
        "against the automa), played by its numpy policy",
        1_000_000, _jax_train, _jax_load, "policy.npz", ("jax",)),
    "bc": Recipe(
        "bc", 1,
        "behaviour cloning of the heuristic bot (every seat) on games of the task's game and "
        "configuration, dealt from a block of deals per seed that nothing scores on "
        "(tabletop_gym.tasks.datasets.cloning: 256x256 ReLU MLP, masked softmax, 10 epochs); "
        "played by its numpy policy",
        6_000, _bc_train, _jax_load, "policy.npz", ("datasets", "train"),
        "heuristic games cloned", _bc_check),
}
"""The recipes ``suite train --algo`` knows."""


def _result_path(out: pathlib.Path, recipe: Recipe, task_id: str, seed: int) -> pathlib.Path:
    return out / recipe.name / task_id / f"seed-{seed}" / "result.json"


def train_suite(
    suite: str,
    algo: str,
    seeds: int = 5,
    out: str | pathlib.Path = "results/suite-train",
    timesteps: int | None = None,
    task_ids: Sequence[str] | None = None,
    deals_per_seed: int | None = None,
    eval_seeds: int | None = None,
    progress: bool = False,
    overrides: Mapping[str, Any] | None = None,
    only_seeds: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Train and score one agent per (task, training seed); the gathered results document.

    Args:
        suite: Suite name.
        algo: Recipe name (:data:`RECIPES`).
        seeds: Training seeds ``0 .. seeds - 1``.
        out: Parent folder of the recipe's folder.
        timesteps: Learner steps per (task, seed) (default: the recipe's).
        task_ids: Only these tasks of the suite.
        deals_per_seed: Score on this many deals per evaluation seed instead of the protocol's
            (quick looks and tests; recorded, and not comparable with the protocol's).
        eval_seeds: Evaluation seeds (default: the suite's).
        progress: Print a line per finished (task, seed).
        overrides: Change the recipe's settings (tests and quick looks; recorded in every row,
            which is then not the recipe's).
        only_seeds: Train only these of the seeds ``0 .. seeds - 1`` (one process or machine
            per seed; the others are left to theirs).

    Raises:
        ValueError: On an unknown recipe, suite or task, a budget below 1 or a seed outside
            ``0 .. seeds - 1``, before anything is trained or written.
        tabletop_gym.extras.MissingExtraError: When the recipe's extra is not installed, also
            before anything is trained or written.
    """
    if algo not in RECIPES:
        raise ValueError(f"unknown recipe {algo!r}; choose one of {sorted(RECIPES)}")
    recipe = RECIPES[algo]
    tasks = suite_tasks(suite)
    if task_ids is not None:
        unknown = [t for t in task_ids if t not in SUITES[suite].task_ids]
        if unknown:
            raise ValueError(f"tasks {unknown} are not in suite {suite!r}; its tasks: "
                             f"{list(SUITES[suite].task_ids)}")
        tasks = [t for t in tasks if t.id in task_ids]
    budget = recipe.timesteps if timesteps is None else int(timesteps)
    if budget < 1 or seeds < 1:
        raise ValueError(f"timesteps and seeds must be at least 1, got {budget} and {seeds}")
    chosen = list(range(seeds)) if only_seeds is None else sorted(set(only_seeds))
    outside = [s for s in chosen if not 0 <= s < seeds]
    if outside or not chosen:
        raise ValueError(f"training seeds {outside} are not among 0..{seeds - 1}; choose at "
                         f"least one seed in that range")
    from tabletop_gym.extras import require

    for extra in recipe.extra:
        require(extra, f"the {recipe.name} recipe")
    if recipe.check is not None:
        recipe.check(budget, dict(overrides or {}))
    root = pathlib.Path(out)
    refs = load_references()
    # Seed by seed over the tasks, so that a run cut short leaves whole seeds for the aggregate.
    for seed in chosen:
        for task in tasks:
            path = _result_path(root, recipe, task.id, seed)
            if path.is_file():
                # Finished before: never trained again. A row scored before the held-out
                # population existed gets its held-out scores while its checkpoint is here.
                _add_held_out(recipe, task, path, progress)
                continue
            run_dir = path.parent
            run_dir.mkdir(parents=True, exist_ok=True)
            cpu0 = time.process_time()
            agent, info = recipe.train(task, seed, run_dir, budget, dict(overrides or {}))
            scored = run_suite(suite, agent, seeds=eval_seeds, deals_per_seed=deals_per_seed,
                               task_ids=[task.id], agent_label=f"{recipe.name} seed {seed}",
                               references=refs, bootstrap_reps=200)
            row = scored["tasks"][0]
            doc = {"format": TRAIN_FORMAT, "format_version": TRAIN_FORMAT_VERSION,
                   "recipe": recipe.name, "recipe_version": recipe.version,
                   "recipe_description": recipe.description, "task": task.id, "seed": seed,
                   "timesteps_budget": budget, "overrides": dict(overrides or {}),
                   "training": info,
                   "cpu_seconds_in_process": round(time.process_time() - cpu0, 1),
                   "protocol": scored["protocol"], "row": row,
                   "metadata": metadata(command="tabletop-gym suite train")}
            if held_out.applies(task):
                doc["held_out"] = held_out.score(task, agent)
                doc["cpu_seconds_in_process"] = round(time.process_time() - cpu0, 1)
            write_results(doc, path)
            if progress:
                print(f"{recipe.name} {task.id} seed {seed}: score {row['score']:.3f}, "
                      f"normalised {row['normalized']}", flush=True)
    # The committed results.json summarises every task of the suite, whichever tasks this run
    # trained; the returned document is this run's tasks.
    gather(root, recipe.name, suite)
    return gather(root, recipe.name, suite, task_ids=[t.id for t in tasks], write=False)


def _add_held_out(recipe: Recipe, task: Task, path: pathlib.Path, progress: bool) -> None:
    """Score a finished row against the held-out population if it lacks that and can be."""
    doc = json.loads(path.read_text())
    current = doc.get("held_out", {}).get("version") == held_out.HELD_OUT_VERSION
    if current or not held_out.applies(task) or not (path.parent / recipe.checkpoint).is_file():
        return
    cpu0 = time.process_time()
    doc["held_out"] = held_out.score(task, recipe.load(path.parent))
    doc["held_out_cpu_seconds"] = round(time.process_time() - cpu0, 1)
    write_results(doc, path)
    if progress:
        print(f"{recipe.name} {task.id} seed {doc['seed']}: held-out scores added", flush=True)


def gather(out: str | pathlib.Path, algo: str, suite: str,
           task_ids: Sequence[str] | None = None, write: bool = True) -> dict[str, Any]:
    """Every finished (task, seed) of ``algo`` under ``out`` as one document, with the aggregate.

    The runs of the aggregate are the training seeds: row ``s`` of the (runs, tasks) matrix
    holds each task's normalised score of the agent trained with seed ``s`` (the mean over the
    evaluation seeds). Only seeds finished on every task enter the aggregate. With ``write``
    the document is also written to ``out/<algo>/results.json``.
    """
    root = pathlib.Path(out) / algo
    ids = list(task_ids) if task_ids is not None else list(SUITES[suite].task_ids)
    runs: dict[str, dict[int, Mapping[str, Any]]] = {t: {} for t in ids}
    for t in ids:
        for path in sorted((root / t).glob("seed-*/result.json")):
            doc = json.loads(path.read_text())
            runs[t][int(doc["seed"])] = doc
    complete = sorted(set.intersection(*(set(v) for v in runs.values()))) if ids else []
    rows = []
    for t in ids:
        per_run = [runs[t][s]["row"]["normalized"] for s in complete]
        rows.append({"id": t, "normalized_per_seed": None if None in per_run or not per_run
                     else [float(x) for x in per_run]})
    doc = {"format": TRAIN_FORMAT, "format_version": TRAIN_FORMAT_VERSION, "recipe": algo,
           "suite": suite, "seeds_complete": complete,
           "runs": {t: {str(s): d["row"] for s, d in sorted(v.items())} for t, v in runs.items()},
           "cpu_seconds": {t: {str(s): d["training"].get("cpu_seconds")
                               for s, d in sorted(v.items())} for t, v in runs.items()},
           "aggregate": aggregate(rows, reps=2000),
           "metadata": metadata(command="tabletop-gym suite train")}
    if write and root.is_dir():
        write_results(doc, root / "results.json")
    return doc

