"""Offline baselines from one command: make a games dataset, fit a policy to it, score it.

:func:`offline_baseline` plays ``games`` games of a task with a policy (a games dataset, as
``tabletop-gym dataset make --format parquet`` writes it), fits a policy to them by behaviour
cloning (:func:`~tabletop_gym.tasks.datasets.cloning.clone`) or by offline RL (discrete CQL,
:func:`~tabletop_gym.tasks.datasets.cql.fit_cql`) and scores it on a task with the results
page's protocol (:func:`~tabletop_gym.tasks.runner.run_suite`: the suite's seeds, the protocol's
deals, every deal from every seat). The result file holds the dataset's checksum and making, the
fit's settings and accuracies (under ``"clone"`` for behaviour cloning, ``"learner"`` for CQL),
the task's row of the suite run and the provenance, so ``docs/datasets.md``'s table is generated
from the committed files (``tools/docs_tables.py``) and each row is remade by the command it
records.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import tempfile
import time
from typing import Any

from tabletop_gym.provenance import metadata

OFFLINE_FORMAT = "tabletop-gym-offline-baseline"
OFFLINE_FORMAT_VERSION = 1


def _suite_of(task_id: str) -> str:
    """The suite the clone is scored in: ``core`` where the task is in it, else its game's."""
    from tabletop_gym.tasks import SUITES, TASKS

    if task_id not in TASKS:
        raise ValueError(f"unknown task {task_id!r}; known tasks: {sorted(TASKS)}")
    return "core" if task_id in SUITES["core"].task_ids else TASKS[task_id].game


METHODS = {"bc": "behaviour cloning", "cql": "discrete CQL"}
"""The offline learners of :func:`offline_baseline`, by the name ``--method`` takes."""


def offline_baseline(
    source_task: str,
    policy: str,
    games: int,
    task: str,
    epochs: int = 10,
    hidden: tuple[int, ...] = (256, 256),
    seed: int = 0,
    work: str | pathlib.Path | None = None,
    seeds: int | None = None,
    deals_per_seed: int | None = None,
    method: str = "bc",
    alpha: float = 1.0,
    gamma: float = 1.0,
) -> dict[str, Any]:
    """An offline learner on ``policy``'s games of ``source_task``, scored on ``task``.

    Args:
        source_task: The pinned task whose game and config the dataset's games are played in.
        policy: The agent spec every seat plays in the dataset.
        games: Games in the dataset (dealt from seed ``seed``).
        task: The task the clone is scored on (the same game).
        epochs: Passes of the learner over the decisions.
        hidden: Hidden widths of the network.
        seed: The dataset's first deal and the learner's seed.
        work: Folder for the dataset and the checkpoint (default: a temporary one, removed).
        seeds: Evaluation seeds (default: the suite's, as the results page plays them).
        deals_per_seed: Deals per seed (default: the protocol's); fewer is off protocol and
            said so in the result's ``"protocol"``.
        method: ``"bc"`` (behaviour cloning) or ``"cql"`` (discrete CQL).
        alpha: CQL's conservative weight (``"cql"`` only).
        gamma: CQL's discount per own decision (``"cql"`` only).

    Returns:
        The result document (see the module docstring).

    Raises:
        ValueError: On an unknown task or method, tasks of two games, or bad settings (before
            any game).
    """
    from tabletop_gym.tasks import TASKS
    from tabletop_gym.tasks.datasets.cloning import clone
    from tabletop_gym.tasks.datasets.cql import fit_cql
    from tabletop_gym.tasks.datasets.games import write_games
    from tabletop_gym.tasks.runner import run_suite

    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {sorted(METHODS)}")
    if method == "cql" and (alpha < 0 or not 0 <= gamma <= 1):
        raise ValueError(f"CQL's alpha must be at least 0 and gamma in [0, 1]; got "
                         f"alpha={alpha}, gamma={gamma}")
    suite = _suite_of(task)
    if source_task not in TASKS:
        raise ValueError(f"unknown task {source_task!r}; known tasks: {sorted(TASKS)}")
    if TASKS[source_task].game != TASKS[task].game:
        raise ValueError(f"the dataset's task {source_task!r} and the scored task {task!r} are "
                         "of different games; a clone plays the game it was fitted to")
    if games < 2 or epochs < 1 or not hidden or min(hidden) < 1:
        raise ValueError(f"games must be at least 2, epochs at least 1 and every hidden width "
                         f"positive; got games={games}, epochs={epochs}, hidden={hidden}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(work) if work is not None else pathlib.Path(tmp)
        cpu0 = time.process_time()
        ds = write_games(folder / "games", source_task, policy, games, seed=seed)
        made_cpu = time.process_time() - cpu0
        checkpoint = folder / f"{method}.npz"
        cpu0 = time.process_time()
        if method == "cql":
            fitted: dict[str, Any] = dataclasses.asdict(fit_cql(
                ds, checkpoint, hidden=hidden, epochs=epochs, alpha=alpha, gamma=gamma,
                seed=seed))
            fitted.update(alpha=alpha, gamma=gamma)
        else:
            fitted = dataclasses.asdict(clone(ds, checkpoint, hidden=hidden, epochs=epochs,
                                              seed=seed))
        fit_cpu = time.process_time() - cpu0
        label = f"{method}-{policy}-{games}-e{epochs}"
        res = run_suite(suite, f"jax:{checkpoint}", seeds=seeds, deals_per_seed=deals_per_seed,
                        task_ids=[task], agent_label=label)
    (row,) = res["tasks"]
    hidden_text = ",".join(str(h) for h in hidden)
    command = (f"tabletop-gym dataset baseline --source-task {source_task} --policy {policy} "
               f"--games {games} --task {task} --epochs {epochs} --hidden {hidden_text} "
               f"--seed {seed}")
    if method == "cql":
        command += f" --method cql --alpha {alpha:g} --gamma {gamma:g}"
    fitted.pop("seconds")  # wall time on a shared machine; the CPU seconds are kept
    return {
        "format": OFFLINE_FORMAT,
        "format_version": OFFLINE_FORMAT_VERSION,
        "method": METHODS[method],
        "command": command,
        "dataset": {
            "task": source_task,
            "policy": policy,
            "games": ds.num_games,
            "decisions": len(ds),
            "first_deal_seed": seed,
            "sha256": ds.manifest["files"][0]["sha256"],
            "cpu_seconds": round(made_cpu, 1),
        },
        "clone" if method == "bc" else "learner": {
            "hidden": list(hidden),
            "epochs": epochs,
            "seed": seed,
            **fitted,
            "cpu_seconds": round(fit_cpu, 1),
        },
        "score": {
            "suite": suite,
            "protocol": res["protocol"],
            "aggregate": res["aggregate"],
            "cpu_seconds": res["cpu_seconds"],
            "task": row,
        },
        "metadata": metadata(method=METHODS[method], source_task=source_task, task=task),
    }


def save(result: dict[str, Any], path: str | pathlib.Path) -> pathlib.Path:
    """Write a result document as JSON (folders created)."""
    out = pathlib.Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out
