"""Offline baselines from one command: make a games dataset, clone it, score the clone.

:func:`bc_baseline` plays ``games`` games of a task with a policy (a games dataset, as
``tabletop-gym dataset make --format parquet`` writes it), fits a behaviour clone to them
(:func:`~tabletop_gym.tasks.datasets.cloning.clone`) and scores the clone on a task with the
results page's protocol (:func:`~tabletop_gym.tasks.runner.run_suite`: the suite's seeds, the
protocol's deals, every deal from every seat). The result file holds the dataset's checksum and
making, the clone's settings and accuracies, the task's row of the suite run and the provenance,
so ``docs/datasets.md``'s table is generated from the committed files
(``tools/docs_tables.py``) and each row is remade by the command it records.
"""

from __future__ import annotations

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


def bc_baseline(
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
) -> dict[str, Any]:
    """Behaviour cloning of ``policy``'s games of ``source_task``, scored on ``task``.

    Args:
        source_task: The pinned task whose game and config the dataset's games are played in.
        policy: The agent spec every seat plays in the dataset.
        games: Games in the dataset (dealt from seed ``seed``).
        task: The task the clone is scored on (the same game).
        epochs: Passes of the clone over the decisions.
        hidden: Hidden widths of the clone.
        seed: The dataset's first deal and the clone's seed.
        work: Folder for the dataset and the checkpoint (default: a temporary one, removed).
        seeds: Evaluation seeds (default: the suite's, as the results page plays them).
        deals_per_seed: Deals per seed (default: the protocol's); fewer is off protocol and
            said so in the result's ``"protocol"``.

    Returns:
        The result document (see the module docstring).

    Raises:
        ValueError: On an unknown task, tasks of two games, or bad settings (before any game).
    """
    from tabletop_gym.tasks import TASKS
    from tabletop_gym.tasks.datasets.cloning import clone
    from tabletop_gym.tasks.datasets.games import write_games
    from tabletop_gym.tasks.runner import run_suite

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
        checkpoint = folder / "bc.npz"
        cpu0 = time.process_time()
        report = clone(ds, checkpoint, hidden=hidden, epochs=epochs, seed=seed)
        clone_cpu = time.process_time() - cpu0
        label = f"bc-{policy}-{games}-e{epochs}"
        res = run_suite(suite, f"jax:{checkpoint}", seeds=seeds, deals_per_seed=deals_per_seed,
                        task_ids=[task], agent_label=label)
    (row,) = res["tasks"]
    hidden_text = ",".join(str(h) for h in hidden)
    return {
        "format": OFFLINE_FORMAT,
        "format_version": OFFLINE_FORMAT_VERSION,
        "method": "behaviour cloning",
        "command": (f"tabletop-gym dataset baseline --source-task {source_task} --policy {policy} "
                    f"--games {games} --task {task} --epochs {epochs} --hidden {hidden_text} "
                    f"--seed {seed}"),
        "dataset": {
            "task": source_task,
            "policy": policy,
            "games": ds.num_games,
            "decisions": len(ds),
            "first_deal_seed": seed,
            "sha256": ds.manifest["files"][0]["sha256"],
            "cpu_seconds": round(made_cpu, 1),
        },
        "clone": {
            "hidden": list(hidden),
            "epochs": epochs,
            "seed": seed,
            "train_decisions": report.train_decisions,
            "valid_decisions": report.valid_decisions,
            "train_accuracy": report.train_accuracy,
            "valid_accuracy": report.valid_accuracy,
            "cpu_seconds": round(clone_cpu, 1),
        },
        "score": {
            "suite": suite,
            "protocol": res["protocol"],
            "aggregate": res["aggregate"],
            "cpu_seconds": res["cpu_seconds"],
            "task": row,
        },
        "metadata": metadata(method="behaviour cloning", source_task=source_task, task=task),
    }


def save(result: dict[str, Any], path: str | pathlib.Path) -> pathlib.Path:
    """Write a result document as JSON (folders created)."""
    out = pathlib.Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out
