"""The leagues of the results page: references, search, held-out bots and learned agents.

Two-player leagues are round robins (:func:`tabletop_gym.arena.league.run_league`) with
enough games per pair for every rating's 95 % interval to be at most about ±60 Elo. Four-player
leagues play every table of four distinct agents
(:func:`tabletop_gym.arena.league.run_table_league`) and rate them from the pairwise
results inside each game, on the same Bradley–Terry Elo scale as the
two-player leagues; a pairwise reduction is used rather than an online multi-player model
(such as openskill's Plackett–Luce) because its fit does not depend on the order in which the
games were played, and its bootstrap re-draws whole games.

The batched search plays in every league with the strongest settings measured for the game and
table size, those ``search:best`` plays (the game spec's ``Benchmark.search``); the league names
them in full, so its file says which settings played. With six agents a 4-player league has 15
tables, each agent at 10 of them, so Positano's plays 30 deals a table (1,200 games an agent)
where its five agents played 45.

The learned agent, ``jax-ppo``, is the ``jax-ppo`` policy shipped with the package in the
2-player leagues, and training seed 0 of the ``jax-ppo`` recipe on the matching 4-player
self-play task in the 4-player leagues (:data:`LEAGUES` says which run). The 4-player
leagues' policy files are committed beside them (``benchmarks/leagues/policies/``), so every
league can be replayed from a clone.

Random plays in the 4-player leagues only. In a 2-player game it wins 0–4.5 % of its games
against the other agents here (400 games against each bot and policy, deals from 700,000), so
its rating rests on a handful of wins: its 95 % interval stays near ±100 Elo at 200 games per pair
and would need about a thousand games per pair, most of them against search, to reach the
target. Its place on every task is the normalised score's zero. At a 4-player table it finishes
above other seats often enough to be rated.

``tabletop-gym suite leagues`` plays every league not yet in ``benchmarks/leagues/`` and writes
one file per league as it finishes. A round robin played again over its own earlier file (an agent
added, say) keeps the earlier games of every pair whose games it would play again, and plays only
the rest (:func:`reusable_pairs`): a pair's games depend only on its two agents, the deals and the
game, so a new agent adds its own pairs and nothing else. Each kept pair is first checked by
replaying its first deal from both seats.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import time
from collections.abc import Callable
from typing import Any

from tabletop_gym.arena.league import run_league, run_table_league
from tabletop_gym.provenance import metadata
from tabletop_gym.registry import RegistryView, game_specs

TARGET_HALF_WIDTH_ELO = 60.0
FIRST_DEAL = 700_000
"""First deal of every league: deals no suite protocol or held-out score plays."""
LEARNED = "jax-ppo"
"""The name of the learned agent in every league."""
OUT = pathlib.Path("benchmarks") / "leagues"


@dataclasses.dataclass(frozen=True)
class LeagueSpec:
    """One league of the page.

    Attributes:
        game: Game name.
        num_players: Seats (2: round robin of pairs; more: tables of distinct agents).
        agents: Agent specs; :data:`LEARNED` is the learned agent described below.
        games: Two players: games per pair. More: deals per table.
        learned_policy: ``None``: the shipped ``jax-ppo`` policy plays as :data:`LEARNED`.
            Otherwise a policy file, relative to the benchmarks root, that does.
        learned_from: Where the learned agent comes from, for the page.
    """

    game: str
    num_players: int
    agents: tuple[str, ...]
    games: int
    learned_policy: str | None
    learned_from: str


def _seed0(task: str) -> tuple[str, str]:
    return (f"leagues/policies/{task}-seed-0.npz",
            f"training seed 0 of the `jax-ppo` row on `{task}`")


def _leagues() -> dict[str, LeagueSpec]:
    lines = sorted(((line.num_players, spec.name, line) for spec in game_specs()
                    for line in spec.benchmark.leagues), key=lambda row: row[:2])
    return {
        f"{game}-{n}p": LeagueSpec(
            game, n, line.agents, line.games,
            *(_seed0(line.learned_task) if line.learned_task is not None else
              (None, f"the shipped `{LEARNED}` policy for {n} players")))
        for n, game, line in lines
    }


LEAGUES: RegistryView[str, LeagueSpec] = RegistryView(_leagues)
"""The leagues of every game's benchmark block, by ``<game>-<N>p`` (fewer seats first); the
heuristic bot comes first and anchors each scale at 0."""


def _agents(spec: LeagueSpec, root: str | pathlib.Path) -> list[Any]:
    if spec.learned_policy is None:
        return list(spec.agents)
    path = pathlib.Path(root) / spec.learned_policy
    if not path.is_file():
        raise ValueError(f"{path} is missing: it is {spec.learned_from.replace('`', '')}, "
                         "copied from that row's policy.npz (tabletop-gym suite train "
                         "--algo jax-ppo)")
    from tabletop_gym.agents.jax_policy import JaxPolicyAgent

    learned = JaxPolicyAgent(path, game_name=spec.game, num_players=spec.num_players)
    learned.name = LEARNED
    return [learned if a == LEARNED else a for a in spec.agents]


def learned_cost(spec: LeagueSpec, root: str | pathlib.Path) -> float | None:
    """CPU seconds of training the league's own learned policy, from the results file beside it.

    ``None`` for the shipped policy or a policy without that file.
    """
    if spec.learned_policy is None:
        return None
    path = (pathlib.Path(root) / spec.learned_policy).with_suffix(".json")
    if not path.is_file():
        return None
    cpu = json.loads(path.read_text()).get("cpu_seconds_in_process")
    return None if cpu is None else float(cpu)


CHECK_DEALS = 1
"""Deals of a kept pair replayed (from every seat) to check that its games are still the ones
this league would play."""


def reusable_pairs(spec: LeagueSpec, earlier: Any, agents: list[Any],
                   echo: Callable[[str], None] = print
                   ) -> tuple[dict[tuple[str, str], list[dict[str, Any]]], list[list[str]]]:
    """The games of an earlier file of a round robin that this league would play again.

    A pair's games are kept when the earlier league played the same deals (first deal, games per
    pair and game config) and the pair in the same order, and replaying its first
    :data:`CHECK_DEALS` deal(s) from every seat gives the very games the file holds (seats,
    scores, winners); a pair whose check differs (an agent or the rules changed since) is played
    again.

    Args:
        spec: The league.
        earlier: The earlier file's document (``None``: nothing to keep).
        agents: The league's agents (specs or objects), in its order.
        echo: Where a pair that fails its check is reported.

    Returns:
        The kept games by pair of names (the ``played`` of
        :func:`tabletop_gym.arena.league.run_league`), and the pairs that failed their check.
    """
    import itertools

    from tabletop_gym.agents.kinds import agent_name
    from tabletop_gym.arena.envs import raw_env_factory
    from tabletop_gym.arena.evaluation import evaluate

    if not earlier or earlier.get("kind") != "round robin" or spec.num_players != 2:
        return {}, []
    res = earlier["result"]
    config = raw_env_factory(spec.game)(num_players=spec.num_players).game.config.to_dict()
    if (res.get("seed"), res.get("games_per_pair"), res.get("config")) != (
            FIRST_DEAL, spec.games, config):
        return {}, []
    by_pair: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for g in res["games"]:
        row = {k: v for k, v in g.items() if k not in ("agent", "opponent")}
        by_pair.setdefault((g["agent"], g["opponent"]), []).append(row)
    names = [agent_name(a) for a in agents]
    kept, failed = {}, []
    keys = ("seed", "seat", "scores", "winners", "outcome")
    for a, b in itertools.combinations(range(len(agents)), 2):
        rows = by_pair.get((names[a], names[b]), [])
        if len(rows) < spec.games:
            continue
        n = CHECK_DEALS * spec.num_players
        check = evaluate(spec.game, agents[a], agents[b], n_games=n, seed=FIRST_DEAL,
                         num_players=spec.num_players).per_game
        if [[g[k] for k in keys] for g in check] != [[g[k] for k in keys] for g in rows[:n]]:
            failed.append([names[a], names[b]])
            echo(f"{names[a]} vs {names[b]}: the earlier games differ from a replay of their "
                 "first deal; playing the pair again")
            continue
        kept[(names[a], names[b])] = rows[:spec.games]
    return kept, failed


def _earlier(path: pathlib.Path) -> dict[str, Any] | None:
    """The league file already at ``path`` (``None``: none there).

    Raises:
        ValueError: When the file there is not a league file (it would be overwritten).
    """
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text())
    except (UnicodeDecodeError, ValueError):
        doc = None
    result = doc.get("result") if isinstance(doc, dict) else None
    if not (isinstance(result, dict) and isinstance(result.get("games"), list)
            and all(isinstance(g, dict) for g in result["games"])):
        raise ValueError(f"{path} is not a league file (JSON with a 'result' holding its "
                         "'games'); move it away or give another out folder")
    return doc


def play(name: str, root: str | pathlib.Path = "benchmarks",
         out: str | pathlib.Path = OUT) -> dict[str, Any]:
    """Play league ``name`` and write ``out/<name>.json``; the document written.

    A round robin keeps the games of an earlier ``out/<name>.json`` that it would play again
    (:func:`reusable_pairs`); the document lists them under ``"reused"`` and, when it keeps any,
    counts the earlier run's CPU time in ``cpu_seconds`` (``cpu_seconds_this_run``: this run's
    alone).

    Raises:
        ValueError: On an unknown league or a missing learned policy, before any game.
    """
    if name not in LEAGUES:
        raise ValueError(f"unknown league {name!r}; the leagues: {sorted(LEAGUES)}")
    spec = LEAGUES[name]
    agents = _agents(spec, root)
    path = pathlib.Path(out) / f"{name}.json"
    earlier = _earlier(path)
    cpu0 = time.process_time()
    reused: dict[str, Any] | None = None
    if spec.num_players == 2:
        kept, failed = reusable_pairs(spec, earlier, agents)
        if kept or failed:
            assert earlier is not None
            reused = {"pairs": [list(p) for p in kept], "failed_check": failed,
                      "checked_deals": CHECK_DEALS,
                      "from_commit": earlier.get("metadata", {}).get("commit"),
                      # The earlier run paid for the kept games; when every check failed,
                      # nothing of it is in this file, so none of its time is counted.
                      "cpu_seconds": earlier.get("cpu_seconds") if kept else 0.0}
        res: Any = run_league(spec.game, agents, games_per_pair=spec.games, seed=FIRST_DEAL,
                              bootstrap=1000, verbose=True, played=kept, num_players=2)
        kind = "round robin"
    else:
        res = run_table_league(spec.game, agents, deals_per_table=spec.games, seed=FIRST_DEAL,
                               bootstrap=1000, verbose=True, num_players=spec.num_players)
        kind = "tables"
    cpu = round(time.process_time() - cpu0, 1)
    doc = {"league": name, "kind": kind, "spec": dataclasses.asdict(spec),
           "learned": spec.learned_from, "learned_cpu_seconds": learned_cost(spec, root),
           "result": res.to_dict(),
           "markdown": res.markdown(),
           "cpu_seconds": round(cpu + float((reused or {}).get("cpu_seconds") or 0.0), 1),
           "cpu_seconds_this_run": cpu, "reused": reused,
           "metadata": metadata(command=f"tabletop-gym suite leagues --league {name}")}
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
