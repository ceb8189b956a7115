"""Offline baselines from one command: make a games dataset, fit a policy to it, score it.

:func:`offline_baseline` plays ``games`` games of a task with a policy (a games dataset, as
``tabletop-gym dataset make --format parquet`` writes it), fits a policy to them by behaviour
cloning (:func:`~tabletop_gym.tasks.datasets.cloning.clone`), by offline RL (discrete CQL,
:func:`~tabletop_gym.tasks.datasets.cql.fit_cql`) or on the search-annotated action values of
the first games (:func:`~tabletop_gym.tasks.datasets.values.fit_values`) and scores it on a
task with the results page's protocol (:func:`~tabletop_gym.tasks.runner.run_suite`: the
suite's seeds, the protocol's deals, every deal from every seat). The result file holds the
dataset's checksum, making and annotation, the fit's settings and accuracies (under ``"clone"``
for behaviour cloning, ``"learner"`` for the others), the task's row of the suite run and the
provenance, so ``docs/datasets.md``'s table is generated from the committed files
(``tools/docs_tables.py``) and each row is remade by the command it records.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import shlex
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


METHODS = {"bc": "behaviour cloning", "cql": "discrete CQL",
           "values": "values learner on search annotations"}
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
    annotate: int | str | None = None,
    annotated_games: int = 0,
    value_weight: float = 1.0,
    value_passes: int = 1,
    data: str | pathlib.Path | None = None,
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
        method: ``"bc"`` (behaviour cloning), ``"cql"`` (discrete CQL) or ``"values"`` (the
            learner on the search-annotated action values).
        alpha: CQL's conservative weight (``"cql"`` only).
        gamma: CQL's discount per own decision (``"cql"`` only).
        annotate: The dataset's annotating search: simulations of the guided ISMCTS per
            annotated decision, or a ``search:`` spec (``None``: none; ``"values"`` needs it;
            :func:`~tabletop_gym.tasks.datasets.games.write_games`).
        annotated_games: Games annotated, from the first.
        value_weight: The value head's loss weight (``"values"`` only).
        value_passes: Passes over the annotated decisions per epoch (``"values"`` only).
        data: A games dataset already made by ``tabletop-gym dataset make --format parquet``
            with these settings (task, policy, games, seed, annotation), used instead of playing
            it again; its making's CPU seconds are its manifest's. A dataset of other settings
            is refused, naming what differs.

    Returns:
        The result document (see the module docstring).

    Raises:
        ValueError: On an unknown task or method, tasks of two games, bad settings, or a
            ``data`` folder of other settings (before any game).
    """
    from tabletop_gym.tasks import TASKS
    from tabletop_gym.tasks.datasets.cloning import clone
    from tabletop_gym.tasks.datasets.cql import fit_cql
    from tabletop_gym.tasks.datasets.games import GameDataset, write_games
    from tabletop_gym.tasks.datasets.values import fit_values
    from tabletop_gym.tasks.runner import run_suite

    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {sorted(METHODS)}")
    if method == "cql" and (alpha < 0 or not 0 <= gamma <= 1):
        raise ValueError(f"CQL's alpha must be at least 0 and gamma in [0, 1]; got "
                         f"alpha={alpha}, gamma={gamma}")
    if method == "values" and (annotate is None or annotated_games < 2 or value_weight <= 0
                               or value_passes < 1):
        raise ValueError(f"the values learner needs annotated games (annotate: simulations or "
                         f"a search: spec, at least 2 annotated_games), a positive value_weight "
                         f"and value_passes; got annotate={annotate}, "
                         f"annotated_games={annotated_games}, value_weight={value_weight}, "
                         f"value_passes={value_passes}")
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
        if data is None:
            ds = write_games(folder / "games", source_task, policy, games, seed=seed,
                             annotate=annotate, annotated_games=annotated_games)
            made_cpu = time.process_time() - cpu0
        else:
            ds = _made_as(GameDataset(data), source_task, policy, games, seed, annotate,
                          annotated_games)
            made_cpu = float(ds.manifest["making"]["cpu_seconds"])
        checkpoint = folder / f"{method}.npz"
        cpu0 = time.process_time()
        if method == "cql":
            fitted: dict[str, Any] = dataclasses.asdict(fit_cql(
                ds, checkpoint, hidden=hidden, epochs=epochs, alpha=alpha, gamma=gamma,
                seed=seed))
            fitted.update(alpha=alpha, gamma=gamma)
        elif method == "values":
            fitted = dataclasses.asdict(fit_values(
                ds, checkpoint, hidden=hidden, epochs=epochs, value_weight=value_weight,
                value_passes=value_passes, seed=seed))
            fitted.update(value_weight=value_weight, value_passes=value_passes)
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
    if annotate is not None:
        command += f" --annotate {shlex.quote(str(annotate))} --annotated-games {annotated_games}"
    if method == "values":
        command += (f" --method values --value-weight {value_weight:g} "
                    f"--value-passes {value_passes}")
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
            # A dataset made in parts and merged holds other games than one make of them all
            # would play: the command that made it, and its parts, say which it is.
            "made_by": ds.manifest["making"]["command"],
            "parts": len(ds.metadata.get("parts") or [ds]),
            "cpu_seconds": round(made_cpu, 1),
            "annotation": ds.metadata["annotation"],
            "annotated_decisions": ds.annotated_decisions,
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


def _made_as(ds: Any, task: str, policy: str, games: int, seed: int,
             annotate: int | str | None, annotated_games: int) -> Any:
    """``ds`` if it holds what these settings make, else a ValueError naming what differs."""
    from tabletop_gym.tasks.datasets.games import annotation_search

    meta = ds.metadata
    annotation = meta["annotation"] or {}
    have = {"task": meta["task"], "policy": meta["policies"], "games": meta["games"],
            "seed": meta["first_deal_seed"], "annotate": annotation.get("search"),
            "annotated games": annotation.get("annotated_games", 0)}
    want = {"task": task, "policy": [policy] * int(meta["num_players"]), "games": games,
            "seed": seed, "annotate": None if annotate is None else annotation_search(annotate),
            "annotated games": annotated_games}
    differ = [f"{k} {have[k]!r} (asked: {want[k]!r})" for k in want if have[k] != want[k]]
    if differ:
        raise ValueError(f"{ds.path} was made with other settings: " + "; ".join(differ))
    return ds


def save(result: dict[str, Any], path: str | pathlib.Path) -> pathlib.Path:
    """Write a result document as JSON (folders created)."""
    out = pathlib.Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out


# --- the committed results, for the pages -------------------------------------------------------


def load_results(root: str | pathlib.Path, methods: tuple[str, ...] = tuple(METHODS)
                 ) -> list[dict[str, Any]]:
    """Every committed result under ``root/<method>/`` (``benchmarks/datasets``).

    Each folder's files are named ``<n>-...json`` in the order they were added, and come back in
    that order (as numbers: ``10-`` after ``2-``), method by method in ``methods``' order; each
    document gains ``"file"``, its path relative to ``root``.

    Raises:
        ValueError: A file that is not an offline result (naming it).
    """
    base = pathlib.Path(root)

    def number(path: pathlib.Path) -> tuple[int, str]:
        head = path.name.split("-", 1)[0]
        return (int(head) if head.isdigit() else -1, path.name)

    out = []
    for method in methods:
        for path in sorted((base / method).glob("*.json"), key=number):
            doc = json.loads(path.read_text(encoding="utf-8"))
            if doc.get("format") != OFFLINE_FORMAT:
                raise ValueError(f"{path} is not an offline baseline result (format "
                                 f"{doc.get('format')!r}, expected {OFFLINE_FORMAT!r})")
            out.append({**doc, "file": path.relative_to(base).as_posix()})
    return out


def normalised_interval(result: dict[str, Any]) -> tuple[float, float]:
    """A result's 95 % score interval on the normalised scale of the task it was scored on.

    Raises:
        ValueError: When the task's random and heuristic references coincide (naming the
            result's ``file``, as :func:`load_results` gives it).
    """
    from tabletop_gym.arena.stats import normalize

    row = result["score"]["task"]
    ref = row["reference"]
    bounds = [normalize(x, ref["random"], ref["heuristic"]) for x in row["score_ci"]]
    if None in bounds:
        raise ValueError(f"{result.get('file', 'an offline result')}: the task's random and "
                         "heuristic references coincide, so its scores have no normalised "
                         "scale")
    lo, hi = (float(b) for b in bounds if b is not None)
    return lo, hi


def section(results: list[dict[str, Any]], task_ids: list[str]) -> list[str]:
    """The results page's offline section: the best row per task, learner and teacher.

    Every result is scored by the page's protocol on a core task; per (task, learner, teacher)
    the row with the highest normalised score stands for the settings tried, and says how many
    there were, since the best of several on the same scoring deals is biased upward. The
    datasets page lists every row.
    """
    if not results:
        return []
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for doc in results:
        task = doc["score"]["task"]["id"]
        groups.setdefault((task, doc["method"], doc["dataset"]["policy"]), []).append(doc)
    order = {m: i for i, m in enumerate(METHODS.values())}
    rows = []
    for (task, method, teacher), docs in sorted(
            groups.items(), key=lambda kv: (task_ids.index(kv[0][0]) if kv[0][0] in task_ids
                                            else len(task_ids), order.get(kv[0][1], 0),
                                            kv[0][2])):
        best = max(docs, key=lambda d: d["score"]["task"]["normalized"])
        row, fit, data = best["score"]["task"], best.get("clone") or best["learner"], \
            best["dataset"]
        lo, hi = normalised_interval(best)
        seed_lo, seed_hi = best["score"]["aggregate"]["iqm_ci"]
        rows.append(f"| `{task}` | {method} | `{teacher}` | {len(docs)} | "
                    f"**{row['normalized']:.2f}** [{lo:.2f}, {hi:.2f}] | "
                    f"[{seed_lo:.2f}, {seed_hi:.2f}] | {data['games']:,} games, "
                    f"{fit['epochs']} epochs | `{best['file']}` |")
    return [
        "## Offline baselines",
        "",
        "Policies fitted to recorded games and scored by this page's protocol (`tabletop-gym "
        "dataset baseline`, [datasets](datasets.md#offline-baselines)): behaviour cloning, "
        "discrete CQL and a learner on the search's annotated action values, on the games of "
        "the heuristic bot, the guided ISMCTS and the shipped learned policies. One row per "
        "task, learner and teacher: the best of the settings tried (their number is given; "
        "the best of several on the same scoring deals is biased upward), normalised score "
        "[95 % interval over the games] and the interval over the 5 evaluation seeds (IQM). "
        "Every setting's row, with its dataset, accuracy and compute, is on the datasets page.",
        "",
        "| task | learner | teacher | settings | best normalised [95 %] | seed interval | "
        "data and epochs | file (`benchmarks/datasets/`) |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
    ]
