"""The leagues of the results page: references, search, held-out bots and learned agents.

Two-player leagues are round robins (:func:`tabletop_gym.experiments.league.run_league`) with
enough games per pair for every rating's 95 % interval to be at most about ±60 Elo. Four-player
leagues play every table of four distinct agents
(:func:`tabletop_gym.experiments.league.run_table_league`) and rate them from the pairwise
results inside each game, on the same Bradley–Terry Elo scale as the
two-player leagues; a pairwise reduction is used rather than an online multi-player model
(such as openskill's Plackett–Luce) because its fit does not depend on the order in which the
games were played, and its bootstrap re-draws whole games.

The learned agent of a league is the ``sb3-ppo`` row's training seed 0 on the matching task
(``benchmarks/suite-train/sb3-ppo/<task>/seed-0/model.zip``, made by ``suite train``; the
checkpoints are not committed, so a league with one runs where the row was trained).

``tabletop-gym suite leagues`` plays every league not yet in ``benchmarks/leagues/`` and writes
one file per league as it finishes.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import time
from typing import Any

from tabletop_gym.experiments.league import run_league, run_table_league
from tabletop_gym.provenance import metadata

TARGET_HALF_WIDTH_ELO = 60.0
FIRST_DEAL = 700_000
"""First deal of every league: deals no suite protocol or held-out score plays."""
LEARNED_SEED = 0
OUT = pathlib.Path("benchmarks") / "leagues"


@dataclasses.dataclass(frozen=True)
class LeagueSpec:
    """One league of the page.

    Attributes:
        game: Game name.
        num_players: Seats (2: round robin of pairs; more: tables of distinct agents).
        agents: Agent specs; ``"sb3-ppo"`` is the learned row's agent of ``learned_task``.
        games: Two players: games per pair. More: deals per table.
        learned_task: The task whose ``sb3-ppo`` checkpoint plays as ``"sb3-ppo"``.
    """

    game: str
    num_players: int
    agents: tuple[str, ...]
    games: int
    learned_task: str


LEAGUES: dict[str, LeagueSpec] = {
    "positano-2p": LeagueSpec(
        "positano", 2, ("heuristic", "random", "ismcts:12:guided", "heuristic:hoarder",
                        "sb3-ppo"), 200, "Positano-2p-vsHeuristic-v0"),
    "rapa_nui-2p": LeagueSpec(
        "rapa_nui", 2, ("heuristic", "random", "ismcts:12:guided", "heuristic:woodsman", "ppo",
                        "sb3-ppo"), 200, "RapaNui-2p-vsHeuristic-v0"),
    "positano-4p": LeagueSpec(
        "positano", 4, ("heuristic", "random", "ismcts:12:guided", "heuristic:hoarder",
                        "sb3-ppo"), 10, "Positano-4p-SelfPlay-v0"),
    "rapa_nui-4p": LeagueSpec(
        "rapa_nui", 4, ("heuristic", "random", "ismcts:12:guided", "heuristic:woodsman",
                        "sb3-ppo"), 10, "RapaNui-4p-SelfPlay-v0"),
}
"""The leagues; the heuristic bot comes first and anchors each scale at 0."""


def checkpoint(spec: LeagueSpec, root: str | pathlib.Path = "benchmarks") -> pathlib.Path:
    """Where the learned agent of ``spec`` is read from."""
    return (pathlib.Path(root) / "suite-train" / "sb3-ppo" / spec.learned_task
            / f"seed-{LEARNED_SEED}" / "model.zip")


def _agents(spec: LeagueSpec, root: str | pathlib.Path) -> list[Any]:
    out: list[Any] = []
    for a in spec.agents:
        if a != "sb3-ppo":
            out.append(a)
            continue
        path = checkpoint(spec, root)
        if not path.is_file():
            raise ValueError(f"{path} is missing: train the sb3-ppo row first (tabletop-gym "
                             f"suite train --algo sb3-ppo --task {spec.learned_task})")
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(str(path), device="cpu")
        model.name = "sb3-ppo"  # type: ignore[attr-defined]  # the name the league reports
        out.append(model)
    return out


def play(name: str, root: str | pathlib.Path = "benchmarks",
         out: str | pathlib.Path = OUT) -> dict[str, Any]:
    """Play league ``name`` and write ``out/<name>.json``; the document written.

    Raises:
        ValueError: On an unknown league or a missing learned checkpoint, before any game.
    """
    if name not in LEAGUES:
        raise ValueError(f"unknown league {name!r}; the leagues: {sorted(LEAGUES)}")
    spec = LEAGUES[name]
    agents = _agents(spec, root)
    cpu0 = time.process_time()
    if spec.num_players == 2:
        res: Any = run_league(spec.game, agents, games_per_pair=spec.games, seed=FIRST_DEAL,
                              bootstrap=1000, verbose=True, num_players=2)
        kind = "round robin"
    else:
        res = run_table_league(spec.game, agents, deals_per_table=spec.games, seed=FIRST_DEAL,
                               bootstrap=1000, verbose=True, num_players=spec.num_players)
        kind = "tables"
    doc = {"league": name, "kind": kind, "spec": dataclasses.asdict(spec),
           "learned_checkpoint": str(checkpoint(spec, root)), "result": res.to_dict(),
           "markdown": res.markdown(), "cpu_seconds": round(time.process_time() - cpu0, 1),
           "metadata": metadata(command=f"tabletop-gym suite leagues --league {name}")}
    path = pathlib.Path(out) / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, default=_plain) + "\n")
    return doc


def _plain(obj: Any) -> Any:
    if isinstance(obj, tuple):
        return list(obj)
    raise TypeError(f"cannot write {type(obj).__name__}")


def load(out: str | pathlib.Path = OUT) -> dict[str, dict[str, Any]]:
    """The leagues written so far, by name."""
    folder = pathlib.Path(out)
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))
            if p.stem in LEAGUES}
