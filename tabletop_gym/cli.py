"""Command line: ``tabletop-gym play | train | eval | league | bench | suite``.

Examples::

    tabletop-gym play --game rapa_nui --players 2 --seat 0 --opponent heuristic --seed 7
    tabletop-gym train --env RapaNui-v0 --timesteps 200000
    tabletop-gym eval --game positano --players 2 --candidate heuristic --opponent random
    tabletop-gym league --game rapa_nui --players 2 --agents random heuristic ismcts:200 ppo
    tabletop-gym bench
    tabletop-gym suite run --suite core --agent heuristic --seeds 5
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
from typing import Any


def _parse_kv(items: list[str]) -> dict[str, Any]:
    """``key=value`` pairs; values are read as JSON when they parse, else as strings."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise SystemExit(f"--set expects key=value, got {item!r}")
        key, raw = item.split("=", 1)
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _agent_spec(text: str) -> Any:
    if text.endswith(".zip"):
        from sb3_contrib import MaskablePPO

        return MaskablePPO.load(text, device="cpu")
    return text


def cmd_train(args: argparse.Namespace) -> int:
    """Train MaskablePPO and evaluate it."""
    from tabletop_gym.training import train

    train(
        env_id=args.env,
        timesteps=args.timesteps,
        seed=args.seed,
        out=args.out,
        n_envs=args.n_envs,
        eval_games=args.eval_games,
        progress_bar=not args.no_progress,
        env_kwargs=_parse_kv(args.set),
        hparams=_parse_kv(args.hp),
        time_limit=args.time_limit,
    )
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate an agent against an opponent and print/save the table."""
    from tabletop_gym.evaluation import evaluate, format_table, save_results

    cfg = _parse_kv(args.set)
    cfg["num_players"] = args.players
    res = evaluate(args.game, _agent_spec(args.candidate), _agent_spec(args.opponent),
                   n_games=args.games, seed=args.seed, **cfg)
    print(format_table([res]))
    if args.out:
        for p in save_results([res], args.out):
            print(f"saved {p}")
    return 0


def cmd_league(args: argparse.Namespace) -> int:
    """Play a round-robin league and save its matrix, ratings, heatmap and table."""
    from tabletop_gym.league import run_league

    cfg = _parse_kv(args.set)
    cfg["num_players"] = args.players
    res = run_league(args.game, [_agent_spec(a) for a in args.agents],
                     games_per_pair=args.games, seed=args.seed, bootstrap=args.bootstrap,
                     verbose=True, **cfg)
    print(res.markdown())
    for path in res.save(args.out, heatmap=not args.no_heatmap):
        print(f"saved {path}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Play a game against bots at the terminal."""
    import numpy as np

    from tabletop_gym.agents.base import choose_action, make_agent
    from tabletop_gym.evaluation import _raw_env_factory

    cfg = _parse_kv(args.set)
    cfg["num_players"] = args.players
    env = _raw_env_factory(args.game)(render_mode="ansi", **cfg)
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    me = env.possible_agents[args.seat]
    bots = {a: make_agent(_agent_spec(args.opponent), env.game, env.observer, rng)
            for a in env.possible_agents if a != me}
    while not env.game_state.is_terminal():
        agent = env.agent_selection
        if agent != me:
            action = choose_action(bots[agent], env, agent)
            print(f"{agent}: {env.action_to_string(action)}")
            env.step(action)
            continue
        obs = env.observe(agent)
        print(type(env).renderer(env.game_state, env.seat_of(me)))
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        for i, a in enumerate(legal):
            print(f"  [{i}] {env.action_to_string(a)}")
        while True:
            choice = input("your choice (number, or q to quit): ").strip()
            if choice == "q":
                return 0
            if choice.isdigit() and int(choice) < len(legal):
                env.step(legal[int(choice)])
                break
            print(f"type a number between 0 and {len(legal) - 1}")
    state = env.game_state
    print(type(env).renderer(state, None))
    print("scores:", state.scores(), "winners:", [env.agent_of(s) for s in state.winners()])
    if args.save_record:
        pathlib.Path(args.save_record).write_text(env.record().to_json(indent=1))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the benchmark script of the source tree (bench/run.py)."""
    script = pathlib.Path.cwd() / "bench" / "run.py"
    if not script.exists():
        print("bench/run.py not found: run this from the root of a source checkout")
        return 2
    return subprocess.call([sys.executable, str(script), *args.rest])


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``tabletop-gym`` command."""
    p = argparse.ArgumentParser(prog="tabletop-gym", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train MaskablePPO on a registered env and evaluate it")
    t.add_argument("--env", default="Positano-v0", help="Positano-v0 or RapaNui-v0")
    t.add_argument("--timesteps", type=int, default=None)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--out", default="runs")
    t.add_argument("--n-envs", type=int, default=8)
    t.add_argument("--eval-games", type=int, default=200)
    t.add_argument("--no-progress", action="store_true")
    t.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                   help="env kwargs, e.g. num_players=2 opponents=heuristic")
    t.add_argument("--hp", nargs="*", default=[], metavar="KEY=VALUE",
                   help="MaskablePPO settings over the defaults, e.g. net_arch=[64,64] "
                        "obs_scaling=none (see tabletop_gym.training.DEFAULT_HPARAMS)")
    t.add_argument("--time-limit", type=float, default=None,
                   help="stop training after this many seconds")
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("eval", help="evaluate an agent with seat rotation and 95%% CIs")
    e.add_argument("--game", default="positano", choices=["positano", "rapa_nui"])
    e.add_argument("--players", type=int, default=2)
    e.add_argument("--candidate", default="heuristic",
                   help="random, heuristic, ismcts[:N[:heuristic]], ppo or model.zip")
    e.add_argument("--opponent", default="random",
                   help="random, heuristic, ismcts[:N[:heuristic]], ppo or model.zip")
    e.add_argument("--games", type=int, default=200)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--out", default=None, help="save <out>.csv and <out>.json")
    e.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    e.set_defaults(func=cmd_eval)

    lg = sub.add_parser("league", help="round robin with seat rotation, ratings and a heatmap")
    lg.add_argument("--game", default="rapa_nui", choices=["positano", "rapa_nui"])
    lg.add_argument("--players", type=int, default=2)
    lg.add_argument("--agents", nargs="+", required=True,
                    help="random, heuristic, ismcts[:N[:heuristic]], ppo or model.zip")
    lg.add_argument("--games", type=int, default=40, help="games per pair")
    lg.add_argument("--seed", type=int, default=0)
    lg.add_argument("--bootstrap", type=int, default=1000)
    lg.add_argument("--out", default="runs/league")
    lg.add_argument("--no-heatmap", action="store_true", help="skip the PNG (no matplotlib)")
    lg.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    lg.set_defaults(func=cmd_league)

    pl = sub.add_parser("play", help="play at the terminal against bots")
    pl.add_argument("--game", default="rapa_nui", choices=["positano", "rapa_nui"])
    pl.add_argument("--players", type=int, default=2)
    pl.add_argument("--seat", type=int, default=0)
    pl.add_argument("--opponent", default="heuristic")
    pl.add_argument("--seed", type=int, default=0)
    pl.add_argument("--save-record", default=None)
    pl.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    pl.set_defaults(func=cmd_play)

    b = sub.add_parser("bench", help="run bench/run.py")
    b.add_argument("rest", nargs=argparse.REMAINDER)
    b.set_defaults(func=cmd_bench)

    from tabletop_gym.tasks.cli import add_suite_parser

    add_suite_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tabletop-gym`` command."""
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
