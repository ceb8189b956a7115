"""The games through OpenSpiel: step time, ISMCTS against the heuristic, MCCFR against random.

Usage::

    nice python bench/openspiel.py step [--games 20]
    nice python bench/openspiel.py ismcts [--games 20] [--simulations 25] [--config ...]
    nice python bench/openspiel.py alpharank  # α-Rank of the two-seat league tables
    nice python bench/openspiel.py learning [--iterations 2000] [--eval-games 40]
    nice python bench/openspiel.py all  # all four, written to bench/results/openspiel.{json,md}

One part alone replaces its own figures in ``bench/results/openspiel.{json,md}``.

``step`` plays random games of each configuration through the native AEC env (``env.observe``
of the agent to act, then ``env.step`` of a random legal action, as a policy plays) and through
``pyspiel`` (``observation_tensor`` of the player to act, ``legal_actions``, ``apply_action``; the
deal's chance nodes are sampled by ``chance_outcomes``), the same seeds for both, and reports the
time per decision of each and their ratio. Positano's AEC env bids in turns (the turn-based
transform), so it is compared with ``transform=turn_based``; the simultaneous game is timed too,
per decision node (a joint bid is one node).

``ismcts`` plays OpenSpiel's ISMCTS bot (``open_spiel.python.algorithms.ismcts``, random-rollout
evaluator, UCT c = 2, the stated number of simulations per move) against our heuristic (as an
OpenSpiel bot reading its seat's ``observation_tensor``) with ``pyspiel.evaluate_bots``, rotating
ISMCTS through every seat, and reports its win rate with a 95% Wilson interval (a shared win is
half a win).

``learning`` runs OpenSpiel's outcome-sampling MCCFR
(``open_spiel.python.algorithms.outcome_sampling_mccfr``, its own exploration 0.6) for the stated
number of iterations (one sampled episode per seat each) on each two-seat game, and reports its
CPU seconds, iterations per second and the information states in its tables; then it plays the
average policy (``solver.average_policy()``, through OpenSpiel) against uniform random play, the
learner in every seat in turn, and reports its win rate with a 95% Wilson interval. At an
information state the solver never visited the average policy is OpenSpiel's uniform one; the
share of the learner's decisions made so is reported too.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import sys
import time
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyspiel  # noqa: E402
from open_spiel.python.algorithms import (  # noqa: E402
    ismcts,
    mcts,
    outcome_sampling_mccfr as os_mccfr,
)

from tabletop_gym.arena.stats import wilson_interval  # noqa: E402
from tabletop_gym.integrations.openspiel import (  # noqa: E402
    HeuristicBot,
    league_alpharank,
    openspiel_name,
)
from tabletop_gym.registry import game_spec  # noqa: E402

OUT = ROOT / "bench" / "results"

STEP_CONFIGS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # (game, AEC env kwargs, OpenSpiel parameters)
    ("rapa_nui", {"num_players": 2}, {"num_players": 2}),
    ("rapa_nui", {"num_players": 4}, {"num_players": 4}),
    ("positano", {"num_players": 2}, {"num_players": 2, "transform": "turn_based"}),
    ("positano", {"num_players": 4}, {"num_players": 4, "transform": "turn_based"}),
    ("positano", {"num_players": 4}, {"num_players": 4}),
]


def _label(game: str, params: dict[str, Any]) -> str:
    return openspiel_name(game) + "(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"


def time_aec(game: str, kwargs: dict[str, Any], games: int, first: int = 0) -> tuple[float, int]:
    """Seconds and decisions of ``games`` random games through the AEC env (resets included)."""
    env = game_spec(game).envs().env(**kwargs)
    rng = np.random.default_rng(first)
    decisions = 0
    start = time.perf_counter()
    for seed in range(first, first + games):
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            obs = env.observe(env.agent_selection)
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            decisions += 1
    return time.perf_counter() - start, decisions


def time_pyspiel(game: str, params: dict[str, Any], games: int,
                 first: int = 0) -> dict[str, float]:
    """Seconds of the deal and of the decisions of ``games`` random games through pyspiel."""
    g = pyspiel.load_game(openspiel_name(game), params)
    rng = np.random.default_rng(first)
    deal = play = 0.0
    nodes = 0
    for _ in range(games):
        t0 = time.perf_counter()
        state = g.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        t1 = time.perf_counter()
        while not state.is_terminal():
            if state.is_simultaneous_node():
                joint = []
                for p in range(g.num_players()):
                    legal = state.legal_actions(p)
                    if legal:
                        state.observation_tensor(p)
                        joint.append(legal[rng.integers(len(legal))])
                    else:
                        joint.append(0)
                state.apply_actions(joint)
            else:
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
            nodes += 1
        t2 = time.perf_counter()
        deal += t1 - t0
        play += t2 - t1
    return {"deal_s": deal, "play_s": play, "nodes": nodes}


def run_step(games: int) -> list[dict[str, Any]]:
    rows = []
    for game, kwargs, params in STEP_CONFIGS:
        sim = params.get("transform") is None and game == "positano"
        # One game of each API in turn, so that a busy machine slows both alike.
        ps = {"deal_s": 0.0, "play_s": 0.0, "nodes": 0}
        aec_s, decisions = 0.0, 0
        for i in range(games):
            part = time_pyspiel(game, params, 1, i)
            for key in ps:
                ps[key] += part[key]
            if not sim:
                t, d = time_aec(game, kwargs, 1, i)
                aec_s, decisions = aec_s + t, decisions + d
        row: dict[str, Any] = {
            "openspiel": _label(game, params),
            "pyspiel_us_per_node": 1e6 * ps["play_s"] / ps["nodes"],
            "pyspiel_deal_ms_per_game": 1e3 * ps["deal_s"] / games,
            "nodes_per_game": ps["nodes"] / games,
        }
        if not sim:
            args = ", ".join(f"{k}={v}" for k, v in kwargs.items())
            row["aec"] = f"{game_spec(game).env_name}({args})"
            row["aec_us_per_step"] = 1e6 * aec_s / decisions
            row["ratio_step"] = row["pyspiel_us_per_node"] / row["aec_us_per_step"]
            row["pyspiel_us_per_step_with_deal"] = 1e6 * (ps["play_s"] + ps["deal_s"]) / ps["nodes"]
            row["ratio_with_deal"] = row["pyspiel_us_per_step_with_deal"] / row["aec_us_per_step"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


LEARNING_CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("rapa_nui", {"num_players": 2}),
    ("positano", {"num_players": 2, "transform": "turn_based"}),
]


def _won(returns: list[float], seat: int) -> float:
    """A seat's share of the win: 1 alone on top, 1/k among k on top, a half if all tie."""
    best = max(returns)
    top = [p for p in range(len(returns)) if returns[p] == best]
    if len(top) == len(returns):
        return 0.5
    return 1.0 / len(top) if seat in top else 0.0


def run_ismcts(game: str, params: dict[str, Any], games: int, simulations: int) -> dict[str, Any]:
    g = pyspiel.load_game(openspiel_name(game), params)
    n = g.num_players()
    wins = 0.0
    per_game = []
    start = time.process_time()
    for i in range(games):
        seat = i % n
        rs = np.random.RandomState(i)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        bots = [
            ismcts.ISMCTSBot(g, evaluator, uct_c=2.0, max_simulations=simulations, random_state=rs)
            if p == seat else HeuristicBot(g, p, seed=1000 * i + p)
            for p in range(n)
        ]
        returns = pyspiel.evaluate_bots(g.new_initial_state(), bots, i)
        wins += _won(list(returns), seat)
        per_game.append({"ismcts_seat": seat, "returns": list(returns)})
    lo, hi = wilson_interval(wins / games, games)
    return {
        "openspiel": _label(game, params),
        "simulations": simulations,
        "games": games,
        "ismcts_wins": wins,
        "ismcts_win_rate": wins / games,
        "wilson95": [lo, hi],
        "cpu_s": time.process_time() - start,
        "per_game": per_game,
    }


def run_learning(game: str, params: dict[str, Any], iterations: int,
                 games: int) -> dict[str, Any]:
    """Outcome-sampling MCCFR for ``iterations``, then its average policy against random play."""
    g = pyspiel.load_game(openspiel_name(game), params)
    n = g.num_players()
    # OpenSpiel's MCCFR samples through numpy's global generator: seeded so a rerun repeats it.
    np.random.seed(0)
    solver = os_mccfr.OutcomeSamplingSolver(g)
    start = time.process_time()
    for _ in range(iterations):
        solver.iteration()
    cpu_s = time.process_time() - start
    table = solver._infostates  # the solver's regret and average-policy tables, one per key
    policy = solver.average_policy()
    wins = 0.0
    decisions = unseen = 0
    per_game = []
    for i in range(games):
        seat = i % n
        rng = np.random.default_rng(i)
        state = g.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                chance = state.chance_outcomes()
                pick = rng.choice(len(chance), p=[q for _, q in chance])
                state.apply_action(chance[int(pick)][0])
                continue
            legal = state.legal_actions()
            if state.current_player() == seat:
                decisions += 1
                unseen += state.information_state_string(seat) not in table
                probs_of = policy.action_probabilities(state, seat)
                p = np.array([probs_of[a] for a in legal], dtype=np.float64)
                state.apply_action(int(rng.choice(legal, p=p / p.sum())))
            else:
                state.apply_action(int(legal[rng.integers(len(legal))]))
        returns = state.returns()
        wins += _won(list(returns), seat)
        per_game.append({"learner_seat": seat, "returns": list(returns)})
    lo, hi = wilson_interval(wins / games, games)
    return {
        "openspiel": _label(game, params),
        "algorithm": "outcome_sampling_mccfr",
        "iterations": iterations,
        "cpu_s": cpu_s,
        "iterations_per_s": iterations / cpu_s if cpu_s > 0 else float("inf"),
        "infostates": len(table),
        "games": games,
        "learner_wins": wins,
        "win_rate": wins / games,
        "wilson95": [lo, hi],
        "learner_decisions": decisions,
        "unseen_decisions": unseen,
        "per_game": per_game,
    }


def run_alpharank() -> list[dict[str, Any]]:
    """α-Rank of every two-seat league table in ``benchmarks/leagues``."""
    rows = []
    for path in sorted((ROOT / "benchmarks" / "leagues").glob("*-2p.json")):
        result = json.loads(path.read_text())["result"]
        mass = league_alpharank(result)
        rows.append({"league": path.stem, "alpha": 5.0, "mass": mass})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def _markdown(step: list[dict[str, Any]], search: list[dict[str, Any]],
              ranks: list[dict[str, Any]], learning: list[dict[str, Any]] | None = None) -> str:
    lines = ["# OpenSpiel bridge (`bench/openspiel.py`)", "",
             f"Python {platform.python_version()}, OpenSpiel {_version()}, {platform.machine()}.",
             ""]
    if step:
        lines += ["## Step time: pyspiel against the native AEC env", "",
                  "| OpenSpiel game | AEC env | AEC µs/step | pyspiel µs/node | ratio | "
                  "pyspiel deal ms/game | ratio with the deal |", "|---|---|---|---|---|---|---|"]
        for r in step:
            # The simultaneous game has no AEC twin (the AEC env bids in turns): no ratio.
            aec, ratio, with_deal = (
                (f"`{r['aec']}` | {r['aec_us_per_step']:.1f}", f"{r['ratio_step']:.2f}",
                 f"{r['ratio_with_deal']:.2f}") if "aec" in r else ("— | —", "—", "—"))
            lines.append(
                f"| `{r['openspiel']}` | {aec} | {r['pyspiel_us_per_node']:.1f} | {ratio} | "
                f"{r['pyspiel_deal_ms_per_game']:.1f} | {with_deal} |")
        lines.append("")
    if search:
        lines += ["## OpenSpiel's ISMCTS against the heuristic", "",
                  "| OpenSpiel game | simulations/move | games | ISMCTS wins | win rate | "
                  "95% Wilson | CPU s |", "|---|---|---|---|---|---|---|"]
        for r in search:
            lo, hi = r["wilson95"]
            lines.append(f"| `{r['openspiel']}` | {r['simulations']} | {r['games']} | "
                         f"{r['ismcts_wins']:g} | {r['ismcts_win_rate']:.2f} | "
                         f"[{lo:.2f}, {hi:.2f}] | {r['cpu_s']:.0f} |")
        lines.append("")
    if ranks:
        lines += ["## α-Rank of the two-seat leagues (OpenSpiel's `egt.alpharank`, α = 5)", "",
                  "| league | stationary mass |", "|---|---|"]
        for r in ranks:
            mass = ", ".join(f"`{a}` {m:.3f}" for a, m in
                             sorted(r["mass"].items(), key=lambda kv: -kv[1]))
            lines.append(f"| `{r['league']}` | {mass} |")
        lines.append("")
    if learning:
        lines += ["## OpenSpiel's outcome-sampling MCCFR, its average policy against random", "",
                  "| OpenSpiel game | iterations | CPU s | iterations/s | information states | "
                  "games | wins | win rate | 95% Wilson | decisions at unseen states |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in learning:
            lo, hi = r["wilson95"]
            lines.append(f"| `{r['openspiel']}` | {r['iterations']} | {r['cpu_s']:.0f} | "
                         f"{r['iterations_per_s']:.1f} | {r['infostates']} | {r['games']} | "
                         f"{r['learner_wins']:g} | {r['win_rate']:.2f} | [{lo:.2f}, {hi:.2f}] | "
                         f"{r['unseen_decisions']}/{r['learner_decisions']} |")
        lines.append("")
    return "\n".join(lines)


def _version() -> str:
    from importlib.metadata import version

    return version("open_spiel")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["step", "ismcts", "alpharank", "learning", "all"])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=25)
    parser.add_argument("--search-games", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=1500,
                        help="MCCFR iterations per game (learning)")
    parser.add_argument("--eval-games", type=int, default=40,
                        help="games of the average policy against random (learning)")
    args = parser.parse_args()
    step = run_step(args.games) if args.what in ("step", "all") else []
    search = []
    if args.what in ("ismcts", "all"):
        for game, params in (("positano", {"num_players": 2, "transform": "turn_based"}),
                             ("rapa_nui", {"num_players": 2})):
            row = run_ismcts(game, params, args.search_games, args.simulations)
            print(json.dumps({k: v for k, v in row.items() if k != "per_game"}), flush=True)
            search.append(row)
    ranks = run_alpharank() if args.what in ("alpharank", "all") else []
    learning = []
    if args.what in ("learning", "all"):
        for game, params in LEARNING_CONFIGS:
            row = run_learning(game, params, args.iterations, args.eval_games)
            print(json.dumps({k: v for k, v in row.items() if k != "per_game"}), flush=True)
            learning.append(row)
    if args.what == "all":
        OUT.mkdir(parents=True, exist_ok=True)
        doc = {"python": platform.python_version(), "open_spiel": _version(),
               "games_per_step_config": args.games, "step": step, "ismcts": search,
               "alpharank": ranks, "learning": learning}
        (OUT / "openspiel.json").write_text(json.dumps(doc, indent=1) + "\n")
        (OUT / "openspiel.md").write_text(_markdown(step, search, ranks, learning))
    elif (OUT / "openspiel.json").exists():
        # One part rerun: it replaces its figures in those of the last full run.
        doc = json.loads((OUT / "openspiel.json").read_text())
        for key, rows in (("step", step), ("ismcts", search), ("alpharank", ranks),
                          ("learning", learning)):
            if rows:
                doc[key] = rows
        if step:
            doc["games_per_step_config"] = args.games
        (OUT / "openspiel.json").write_text(json.dumps(doc, indent=1) + "\n")
        (OUT / "openspiel.md").write_text(
            _markdown(doc["step"], doc["ismcts"], doc.get("alpharank", []),
                      doc.get("learning", [])))


if __name__ == "__main__":
    main()
