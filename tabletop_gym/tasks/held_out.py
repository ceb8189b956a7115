"""A held-out opponent population: bots that no training recipe ever plays against.

An agent trained against the heuristic bot (or against itself) may learn to exploit that one
bot. To show that it does not merely do so, every learned agent of ``suite train`` is also
scored against a population it never met:

* the heuristic bot's named variants (``heuristic:NAME``, :data:`POPULATION`): the same rules
  of thumb with other priorities (blocks kept or spent, rivals ignored; wood or offerings
  first);
* a small search agent, ``ismcts:20`` (UCT over re-dealt hidden information with random
  rollouts): another way of playing altogether.

Protocol (version :data:`HELD_OUT_VERSION`): on a multi-player task, each opponent fills every
other seat in turn; seeds ``0 .. 4``, seed ``s`` a block of deals with engine seeds
``FIRST_DEAL + 1000 * s + j`` (deals no suite protocol plays), each deal once from every seat,
:data:`GAMES_PER_OPPONENT` games per opponent. The score against an opponent is the agent's mean
return; it is normalised by the random agent's and the heuristic bot's scores against the same
opponent on the same deals (:func:`compute_references`), so 0 is random and 1 the heuristic.
"""

from __future__ import annotations

import json
import math
import pathlib
from collections.abc import Mapping, Sequence
from typing import Any

from tabletop_gym.arena.stats import normalize
from tabletop_gym.provenance import metadata
from tabletop_gym.registry import RegistryView, game_specs
from tabletop_gym.tasks import Task
from tabletop_gym.tasks.runner import REFERENCE_AGENTS, score_task, write_results

HELD_OUT_VERSION = 1
"""Bumped by any change of the population or its protocol."""
POPULATION: Mapping[str, tuple[str, ...]] = RegistryView(lambda: {
    spec.name: spec.benchmark.held_out
    for spec in sorted(game_specs(), key=lambda spec: spec.name) if spec.benchmark.held_out})
"""The held-out opponents of each game (its benchmark block's ``held_out``)."""
SEEDS = 5
GAMES_PER_OPPONENT = 100
"""Seat-rotated games against each opponent (at least; whole deals per seed)."""
FIRST_DEAL = 900_000
"""Engine seed of the first held-out deal: far from every suite protocol's deals."""
DEFAULT_REFERENCES = pathlib.Path("benchmarks") / "held-out" / "references.json"


def applies(task: Task) -> bool:
    """Whether the task has opponents to replace (solo plays the automa only)."""
    return task.num_players >= 2


def deals_per_seed(task: Task) -> int:
    """Deals per seed that give :data:`GAMES_PER_OPPONENT` seat-rotated games."""
    return math.ceil(GAMES_PER_OPPONENT / (SEEDS * task.num_players))


def protocol() -> dict[str, Any]:
    """What a held-out score was measured under, written beside it."""
    return {"version": HELD_OUT_VERSION, "population": {g: list(p) for g, p in POPULATION.items()},
            "seeds": list(range(SEEDS)), "games_per_opponent": GAMES_PER_OPPONENT,
            "first_deal": FIRST_DEAL,
            "normalized": "(score - random) / (heuristic - random) against the same opponent"}


def score(task: Task, agent: Any) -> dict[str, Any]:
    """The agent's score against every held-out opponent of the task's game.

    Returns:
        ``{"version", "deals_per_seed", "by_opponent": {spec: {games, mean_return, return_ci,
        win_rate, win_ci, mean_score}}}``.

    Raises:
        ValueError: On a solo task (no opponents to hold out).
    """
    if not applies(task):
        raise ValueError(f"{task.id} is a solo task: it has no opponents to hold out")
    got = score_task(task, agent, list(range(SEEDS)), deals_per_seed(task),
                     opponents=POPULATION[task.game], first_deal=FIRST_DEAL)
    return {"version": HELD_OUT_VERSION, "deals_per_seed": deals_per_seed(task),
            "by_opponent": got["by_opponent"]}


def compute_references(tasks: Sequence[Task], out: str | pathlib.Path = DEFAULT_REFERENCES,
                       progress: bool = False) -> dict[str, Any]:
    """Score the random agent and the heuristic bot against the population; resumable.

    A (task, reference agent) already in ``out`` under this version is kept, so the job can be
    stopped and resumed; the file is rewritten after each one.
    """
    path = pathlib.Path(out)
    doc: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
    if doc.get("protocol", {}).get("version") != HELD_OUT_VERSION:
        doc = {}
    rows: dict[str, Any] = doc.get("tasks", {})
    for task in tasks:
        if not applies(task):
            continue
        row = rows.setdefault(task.id, {"version": task.version})
        if row.get("version") != task.version:
            row.clear()
            row["version"] = task.version
        for ref in REFERENCE_AGENTS:
            if ref in row:
                continue
            row[ref] = score(task, ref)
            doc = {"protocol": protocol(), "tasks": rows,
                   "metadata": metadata(command="tabletop-gym suite held-out --references")}
            write_results(doc, path)
            if progress:
                print(f"held-out references: {task.id} {ref}", flush=True)
    return doc


def normalized(held: Mapping[str, Any], task_id: str,
               references: Mapping[str, Any]) -> dict[str, float | None] | None:
    """Per opponent, the normalised held-out score; ``None`` without references for the task."""
    ref = references.get("tasks", {}).get(task_id)
    if ref is None or any(r not in ref for r in REFERENCE_AGENTS):
        return None
    out: dict[str, float | None] = {}
    for opp, cell in held["by_opponent"].items():
        r = ref["random"]["by_opponent"][opp]["mean_return"]
        h = ref["heuristic"]["by_opponent"][opp]["mean_return"]
        out[opp] = normalize(float(cell["mean_return"]), float(r), float(h))
    return out


def load_references(path: str | pathlib.Path = DEFAULT_REFERENCES) -> dict[str, Any]:
    """The committed held-out references (empty when not computed yet or of another version)."""
    p = pathlib.Path(path)
    if not p.is_file():
        return {}
    doc: dict[str, Any] = json.loads(p.read_text())
    if doc.get("protocol", {}).get("version") != HELD_OUT_VERSION:
        return {}
    return doc
