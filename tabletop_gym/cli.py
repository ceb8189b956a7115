"""Command line: ``tabletop-gym`` play, replay, serve, train, eval, league, bench, suite, dataset.

Examples::

    tabletop-gym play --game rapa_nui --players 2 --seat 0 --opponents heuristic --seed 7
    tabletop-gym play --game positano --players 3 --seat 1 --save-record game.json
    tabletop-gym replay game.json --view 1 --gif game.gif
    tabletop-gym serve --port 8000
    tabletop-gym train --env RapaNui-v0 --timesteps 200000
    tabletop-gym train --backend rllib --env positano --players 3 --iterations 20
    tabletop-gym train --backend jax --game rapa_nui --players 2 --opponents pool --minutes 10
    tabletop-gym eval --game positano --players 2 --candidate heuristic --opponent random
    tabletop-gym league --game rapa_nui --players 2 --agents random heuristic ismcts:200 ppo
    tabletop-gym bench
    tabletop-gym suite run --suite core --agent heuristic --seeds 5
    tabletop-gym dataset make --task RapaNui-2p-vsHeuristic-v0 --policy heuristic --episodes 100
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from tabletop_gym.agents.kinds import require_agent
from tabletop_gym.console import line_buffered, parse_assignments
from tabletop_gym.extras import PPO_MODULES, figure_note, require
from tabletop_gym.registry import default_game, game_names, game_spec, game_specs


def _parse_kv(items: list[str], flag: str = "--set") -> dict[str, Any]:
    """``key=value`` items, read by :func:`~tabletop_gym.console.parse_assignments`."""
    try:
        return parse_assignments(items, flag)
    except ValueError as e:
        raise CLIError(str(e)) from None


def _agent_spec(text: str) -> Any:
    """An opponent spec from the command line: an agent name, an LLM spec or a checkpoint path.

    An agent whose extra is missing is refused here, before any game is played.
    """
    require_agent(text)
    if text.startswith("llm:"):
        from tabletop_gym.agents.kinds import check_spec

        check_spec(text)  # a malformed spec is one clear line before anything is played
        return text
    if text.startswith("jax:"):
        return text  # a numpy policy checkpoint: make_agent loads and checks it
    if text.endswith(".zip") or os.sep in text or "/" in text:
        path = pathlib.Path(text)
        if not path.exists():
            raise CLIError(f"checkpoint {text!r} not found")
        from sb3_contrib import MaskablePPO

        return MaskablePPO.load(str(path), device="cpu")
    return text


def cmd_train(args: argparse.Namespace) -> int:
    """Train MaskablePPO (or, with ``--backend rllib``, RLlib PPO self-play) and evaluate it."""
    if args.backend == "jax":
        return _train_jax(args)
    for flag in JAX_ONLY:
        if getattr(args, flag) is not None:
            raise CLIError(f"--{flag.replace('_', '-')} is a flag of --backend jax")
    if args.env is None:
        args.env = game_spec(default_game("sb3")).gym_id
    if args.backend == "rllib":
        return _train_rllib(args)
    for flag in RLLIB_ONLY:
        if getattr(args, flag) is not None:
            raise CLIError(f"--{flag.replace('_', '-')} is a flag of --backend rllib")
    env_kwargs = _parse_kv(args.set)
    hparams = _parse_kv(args.hp, "--hp")
    if args.players is not None:
        env_kwargs["num_players"] = args.players
    require("train", "train --backend sb3 (MaskablePPO)")
    from tabletop_gym.tasks.recipes import train

    train(
        env_id=args.env,
        timesteps=args.timesteps,
        seed=args.seed,
        out=args.out,
        n_envs=8 if args.n_envs is None else args.n_envs,
        eval_games=args.eval_games,
        progress_bar=not args.no_progress,
        env_kwargs=env_kwargs,
        hparams=hparams,
        time_limit=args.time_limit,
    )
    return 0


RLLIB_ONLY = ("iterations", "num_env_runners", "envs_per_runner", "address", "mapping",
              "pool_size", "refresh_every")
"""Flags of ``train`` that only the RLlib backend reads (``None`` unless given)."""


JAX_ONLY = ("game", "opponents", "seeds", "minutes")
"""Flags of ``train`` that only the JAX backend reads (``None`` unless given)."""


def _train_jax(args: argparse.Namespace) -> int:
    """Masked PPO on the batched JAX engine (``tabletop_gym.jax.train``; JAX imported here).

    Every flag and value is checked before anything is compiled or written.
    """
    for flag in (*RLLIB_ONLY, "env", "time_limit"):
        if getattr(args, flag) is not None:
            hint = " (use --game and --minutes)" if flag in ("env", "time_limit") else ""
            raise CLIError(f"--{flag.replace('_', '-')} is not a flag of --backend jax{hint}")
    if args.timesteps is not None and args.minutes is not None:
        raise CLIError("give --minutes or --timesteps, not both")
    if args.timesteps is not None:
        _positive("--timesteps", args.timesteps)
    if args.minutes is not None and not args.minutes > 0:
        raise CLIError(f"--minutes must be positive, got {args.minutes}")
    seeds = 1 if args.seeds is None else args.seeds
    _positive("--seeds", seeds)
    if args.eval_games < 0:
        raise CLIError(f"--eval-games must be at least 0, got {args.eval_games}")
    require("jax", "train --backend jax")
    # A bad name is refused with the known ones.
    game = game_spec(args.game or default_game("batched")).name
    players = 2 if args.players is None else args.players
    env_config = _parse_kv(args.set)
    hparams = _parse_kv(args.hp, "--hp")
    if args.opponents is not None:
        if "opponents" in hparams:
            raise CLIError("give the opponents by --opponents or --hp opponents=..., not both")
        hparams["opponents"] = args.opponents
    if hparams.get("opponents") == "heuristic-net" and "opponent_net" not in hparams:
        from tabletop_gym.jax.distill import shipped

        try:
            hparams["opponent_net"] = str(shipped(game, players))
        except ValueError as exc:
            raise CLIError(str(exc)) from None
    if args.n_envs is not None:
        hparams.setdefault("num_envs", args.n_envs)
    if "hidden" in hparams and isinstance(hparams["hidden"], list):
        hparams["hidden"] = tuple(hparams["hidden"])
    from tabletop_gym.core.game import ConfigError
    from tabletop_gym.jax.core import make
    from tabletop_gym.jax.train import TrainConfig, train

    try:
        config = TrainConfig.from_overrides(hparams)
        make(game, num_players=players, **env_config)
    except (ConfigError, TypeError) as exc:
        raise CLIError(str(exc)) from None
    train(game, players, config=config, seeds=seeds, seed=args.seed, timesteps=args.timesteps,
          minutes=args.minutes, out=args.out, eval_games=args.eval_games,
          progress=not args.no_progress, env_config=env_config)
    return 0


def _train_rllib(args: argparse.Namespace) -> int:
    """Multi-agent PPO self-play on Ray RLlib (ray is imported only here)."""
    from tabletop_gym.integrations.rllib import game_name, require_ray, selfplay

    if args.timesteps is not None or args.n_envs is not None:
        raise CLIError("--timesteps and --n-envs are flags of --backend sb3; the RLlib backend "
                       "takes --iterations, --num-env-runners and --envs-per-runner")
    game_name(args.env)  # a bad name is reported before the missing extra
    require_ray()
    selfplay(
        game=args.env,
        num_players=2 if args.players is None else args.players,
        iterations=20 if args.iterations is None else args.iterations,
        mapping=args.mapping or "shared",
        num_env_runners=args.num_env_runners or 0,
        envs_per_runner=8 if args.envs_per_runner is None else args.envs_per_runner,
        address=args.address,
        out=args.out,
        seed=args.seed,
        eval_games=args.eval_games,
        pool_size=4 if args.pool_size is None else args.pool_size,
        refresh_every=5 if args.refresh_every is None else args.refresh_every,
        time_limit=args.time_limit,
        env_config=_parse_kv(args.set),
        hparams=_parse_kv(args.hp, "--hp"),
    )
    return 0


class CLIError(Exception):
    """A bad argument or input: printed as one line, never as a traceback."""


def _positive(name: str, value: int) -> None:
    if value < 1:
        raise CLIError(f"{name} must be at least 1, got {value}")


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate an agent against an opponent and print/save the table."""
    from tabletop_gym.agents.llm import report_markdown
    from tabletop_gym.arena.evaluation import evaluate, format_table, save_results

    _positive("--games", args.games)
    cfg = _parse_kv(args.set)
    cfg["num_players"] = args.players
    with _invalid_results_told_once():
        res = evaluate(args.game, _agent_spec(args.candidate), _agent_spec(args.opponent),
                       n_games=args.games, seed=args.seed, **cfg)
    print(format_table([res]))
    if res.llm:
        print(report_markdown(res.llm))
    if args.out:
        for p in save_results([res], args.out):
            print(f"saved {p}")
    return _invalid_status(args, res.invalid)


def cmd_exploit(args: argparse.Namespace) -> int:
    """Train best responses to an agent over a budget ladder and score them (issue 42)."""
    try:
        budgets = [int(b.replace("_", "")) for b in args.budgets.split(",")]
    except ValueError:
        raise CLIError(f"--budgets takes learner steps separated by commas, e.g. "
                       f"100000,300000,1000000; got {args.budgets!r}") from None
    overrides = _parse_kv(args.hp, "--hp")
    from tabletop_gym.tasks.exploit import exploit, ladder_config, markdown

    config = ladder_config(overrides)
    out = exploit(game_spec(args.game).name, args.players, _agent_spec(args.agent),
                  budgets=budgets, seeds=args.seeds, eval_games=args.games, out=args.out,
                  config=config, proxy=args.proxy, seed=args.seed, policies=args.policies,
                  env_config=_parse_kv(args.set), phase=args.phase)
    if args.phase == "train":
        print("\n".join(f"kept {path}" for path in out["checkpoints"]))
        return 0
    print("\n".join(markdown([out])))
    return 0


INVALID_STATUS = 3
"""Exit status of ``eval`` and ``league`` when an LLM result is invalid (docs/llm.md); the same
as :data:`tabletop_gym.agents.llm.INVALID_STATUS`, kept here so that importing the command does
not import the LLM harness."""


@contextlib.contextmanager
def _invalid_results_told_once() -> Iterator[None]:
    """Silence the invalid-result warnings while a command plays: it says why itself, once."""
    from tabletop_gym.agents.llm import invalid_results_told_once

    with invalid_results_told_once():
        yield


def _invalid_status(args: argparse.Namespace, invalid: dict[str, str]) -> int:
    """Say why each invalid LLM result is invalid; exit 3 unless ``--allow-fallbacks``."""
    from tabletop_gym.agents.llm import tell_invalid

    return tell_invalid(args.command, invalid, args.allow_fallbacks)


def _record_saver(folder: pathlib.Path) -> Any:
    """A record sink that writes each game's record to ``folder/game_<k>.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    count = [0]

    def save(record: Any) -> None:
        count[0] += 1
        (folder / f"game_{count[0]:04d}.json").write_text(record.to_json(indent=1))

    return save


def cmd_league(args: argparse.Namespace) -> int:
    """Play a round-robin league and save its matrix, ratings, heatmap and table."""
    from tabletop_gym.arena.league import run_league

    cfg = _parse_kv(args.set)
    cfg["num_players"] = args.players
    specs = [_agent_spec(a) for a in args.agents]
    heatmap = not args.no_heatmap
    note = figure_note("the heatmap league.png", "--no-heatmap") if heatmap else None
    if note is not None:
        print(note, file=sys.stderr)
        heatmap = False
    sink = None
    if any(isinstance(a, str) and a.startswith("llm:") for a in specs):
        sink = _record_saver(pathlib.Path(args.out) / "records")
    prices = None
    if args.prices:
        from tabletop_gym.agents.llm import load_prices

        try:
            prices = load_prices(json.loads(pathlib.Path(args.prices).read_text()))
        except (OSError, ValueError) as exc:
            raise CLIError(f"--prices {args.prices}: {exc}") from None
    with _invalid_results_told_once():
        res = run_league(args.game, specs, games_per_pair=args.games, seed=args.seed,
                         bootstrap=args.bootstrap, verbose=True, record_sink=sink,
                         prices=prices, **cfg)
    print(res.markdown())
    if sink is not None:
        print(f"saved the game records with the LLM transcripts to {pathlib.Path(args.out)}"
              "/records/ (tabletop-gym replay shows them)")
    for path in res.save(args.out, heatmap=heatmap):
        print(f"saved {path}")
    return _invalid_status(args, res.invalid)


def cmd_ladder(args: argparse.Namespace) -> int:
    """Rate an agent against the frozen reference ladder, or (``--refit``) fit the ladder."""
    from tabletop_gym.arena import ladder

    if args.refit:
        if args.agent:
            raise CLIError("--refit fits the ladder itself; give no --agent with it")
        _positive("--games-per-pair", args.games_per_pair)
        doc = ladder.fit_ladder(args.games_per_pair, seed=args.seed, bootstrap=args.bootstrap)
        out = pathlib.Path(args.ladder or ladder.LADDER_FILE)
        out.write_text(json.dumps(doc, indent=1) + "\n")
        print(json.dumps(doc["ratings"]))
        print(f"saved {out}")
        return 0
    if not args.agent:
        raise CLIError("give --agent SPEC to rate (or --refit to fit the ladder)")
    _positive("--games", args.games)
    doc = ladder.load_ladder(args.ladder or ladder.LADDER_FILE)
    with _invalid_results_told_once():
        res = ladder.rate_against(_agent_spec(args.agent), games_per_member=args.games,
                                  seed=args.seed, bootstrap=args.bootstrap, ladder=doc)
    print(res.markdown())
    if args.out is not None:
        out = pathlib.Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res.to_json(), indent=1) + "\n")
        print(f"saved {out}")
    if args.games != ladder.GAMES_PER_MEMBER or args.seed != 0:
        print(f"\nnote: off protocol ({args.games} games per member, seed {args.seed}; the "
              f"protocol plays {ladder.GAMES_PER_MEMBER} from seed 0): not comparable as a "
              f"{ladder.LADDER_PROTOCOL} rating")
    return _invalid_status(args, res.invalid)


def _env_class(game: str) -> Any:
    from tabletop_gym.arena.envs import raw_env_factory

    return raw_env_factory(game)


def _ask(prompt: str) -> str:
    try:
        return input(prompt).strip()
    except EOFError:
        raise CLIError("input ended before the game did; the game is abandoned") from None


def _choose(env: Any, me: str) -> int | None:
    """Ask the human for one of the legal actions; ``None`` to quit. Asks again on bad input."""
    legal = env.legal_actions(me)
    seat = env.seat_of(me)
    state = env.game_state
    print(type(env).renderer(state, seat))
    for i, a in enumerate(legal):
        print(f"  [{i}] {state.action_to_string(a, seat)}")
    while True:
        choice = _ask(f"your choice 0..{len(legal) - 1} (b: board, q: quit): ")
        if choice in ("q", "quit"):
            return None
        if choice in ("b", "board", "?", "h"):
            print(type(env).renderer(state, seat))
            for i, a in enumerate(legal):
                print(f"  [{i}] {state.action_to_string(a, seat)}")
            continue
        if choice.isdigit() and int(choice) < len(legal):
            return legal[int(choice)]
        print(f"{choice!r} is not a choice: type a number from 0 to {len(legal) - 1}, "
              "b to show the board again or q to quit")


def _opponent_specs(text: str, n_others: int) -> list[Any]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) == 1:
        parts = parts * n_others
    if len(parts) != n_others:
        raise CLIError(f"--opponents needs one spec or {n_others} comma-separated specs "
                       f"(one per other seat), got {len(parts)}")
    return [_agent_spec(p) for p in parts]


def cmd_play(args: argparse.Namespace) -> int:
    """Play a game against bots at the terminal; only what the human's seat may know is shown."""
    import numpy as np

    from tabletop_gym.agents.base import choose_action
    from tabletop_gym.agents.kinds import make_agent
    from tabletop_gym.arena.envs import people_env

    cfg = _parse_kv(args.set)
    cfg["num_players"] = args.players
    env = people_env(args.game, split=not args.one_step_bid, render_mode="ansi", **cfg)
    n = env.game.num_players
    if not 0 <= args.seat < n:
        raise CLIError(f"--seat {args.seat} is not a seat of a {n}-player game; choose 0..{n - 1}")
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    me = env.possible_agents[args.seat]
    others = [a for a in env.possible_agents if a != me]
    specs = _opponent_specs(args.opponents, len(others))
    bots = {a: make_agent(spec, env.game, env.observer, rng)
            for a, spec in zip(others, specs, strict=True)}
    narrator = type(env).narrator
    print(f"You play seat {args.seat} ({me}) against {', '.join(map(str, specs)) or 'nobody'}; "
          f"seed {args.seed}.")
    while not env.game_state.is_terminal():
        agent = env.agent_selection
        if agent == me:
            action = _choose(env, me)
            if action is None:
                print("game abandoned")
                return 0
        else:
            action = choose_action(bots[agent], env, agent)
        before = env.game_state.clone()
        line = env.public_action_string(action, me)
        env.step(action)
        who = "you" if agent == me else agent
        print(f"{who}: {line}")
        for event in narrator(before, action, env.game_state):
            print(f"  {event}")
    state = env.game_state
    print(type(env).renderer(state, None))
    print("scores:", [float(x) for x in state.scores()],
          "winners:", [env.agent_of(s) for s in state.winners()])
    if args.save_record:
        from tabletop_gym.agents.llm import record_with_logs

        # the record carries the transcripts of language-model opponents (agent_logs)
        pathlib.Path(args.save_record).write_text(record_with_logs(env, bots).to_json(indent=1))
        print(f"saved {args.save_record}")
    return 0


def _parse_view(text: str, n: int) -> int | None:
    if text == "public":
        return None
    seats = [str(s) for s in range(n)]  # compared as text: "²" or 5,000 digits is no seat
    if text in seats:
        return seats.index(text)
    raise CLIError(f"--view {text!r} is not allowed; choose public or a seat 0..{n - 1}")


def cmd_replay(args: argparse.Namespace) -> int:
    """Step through a saved game record in the terminal, or draw it as a GIF / PNG frames."""
    import random

    from tabletop_gym.agents.llm import transcript_lines
    from tabletop_gym.core.records import GameRecord

    path = pathlib.Path(args.record)
    if not path.is_file():
        raise CLIError(f"record file {args.record!r} not found")
    rec = GameRecord.from_json(path.read_text())
    game = rec.make_game()
    cls = _env_class(rec.game)
    view = _parse_view(args.view, game.num_players)
    _positive("--every", args.every)
    rec.replay()  # every action replays, before anything is printed or written
    state = game.new_initial_state(random.Random(rec.seed))
    made = (rec.provenance or {}).get("package_version", "unknown")
    print(f"Replaying {rec.game} ({rec.env_id or 'env not recorded'}), config {rec.config}, "
          f"seed {rec.seed}, {len(rec.actions)} actions, written by tabletop-gym {made}; "
          f"view: {args.view}")
    pictures = args.gif is not None or args.frames is not None
    frames = [cls.painter(state, view)] if pictures else []
    if not pictures:
        print(cls.renderer(state, view))
    for i, action in enumerate(rec.actions):
        actor = state.current_player()
        before = state.clone()
        line = state.public_action_string(action, view)
        state.apply_action(action)
        if not pictures:
            print(f"[{i + 1}] seat {actor}: {line}")
            for text in transcript_lines(rec.agent_logs, i, view, args.prompts):
                print(f"    {text}")
            for event in cls.narrator(before, action, state):
                print(f"  {event}")
            if args.pause:
                _ask("(enter: next action) ")
        elif (i + 1) % args.every == 0 or i + 1 == len(rec.actions):
            frames.append(cls.painter(state, view))
    if not pictures:
        print(cls.renderer(state, view))
    print("scores:", [float(x) for x in state.scores()], "winners:", state.winners())
    if args.frames is not None:
        from PIL import Image

        out = pathlib.Path(args.frames)
        out.mkdir(parents=True, exist_ok=True)
        for k, frame in enumerate(frames):
            Image.fromarray(frame).save(out / f"frame_{k:04d}.png")
        print(f"wrote {len(frames)} frames to {out}")
    if args.gif is not None:
        from PIL import Image

        images = [Image.fromarray(f).quantize(colors=128) for f in frames]
        images[0].save(args.gif, save_all=True, append_images=images[1:], duration=args.delay,
                       loop=0, optimize=False)
        print(f"wrote {args.gif} ({len(images)} frames)")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the web app: play, watch and replay games in the browser."""
    require("web", "serve")
    from tabletop_gym.web.app import serve
    if not 0 <= args.port <= 65535:
        raise CLIError(f"--port must be 0..65535, got {args.port}")
    serve(host=args.host, port=args.port, runs_dir=args.runs, save_dir=args.save or None)
    return 0


def _flag_is(argv: list[str], flag: str, value: str) -> bool:
    """Whether ``argv`` gives ``flag`` the value ``value`` (``--flag value``, ``--flag=value``)."""
    return any(a == f"{flag}={value}" or (a == flag and argv[i + 1:i + 2] == [value])
               for i, a in enumerate(argv))


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the benchmark script of the source tree (bench/run.py)."""
    script = pathlib.Path.cwd() / "bench" / "run.py"
    if not script.exists():
        print("bench/run.py not found: run this from the root of a source checkout")
        return 2
    require("bench", "bench (its comparison rows)")
    if "--quick" not in args.rest and not _flag_is(args.rest, "--ppo-steps", "0"):
        require("train", "bench's PPO rows (--quick or --ppo-steps 0 skips them)", PPO_MODULES)
    return subprocess.call([sys.executable, str(script), *args.rest])


AGENT_HELP = ("random, heuristic[:VARIANT], ismcts[:N[:heuristic|guided]], "
              "search[:POLICY][?worlds=K], ppo, jax-ppo, jax:CHECKPOINT.npz, model.zip, or a "
              "language model as llm:MODEL@BASE_URL with options after ?, e.g. "
              "'llm:qwen2.5@http://127.0.0.1:8000/v1?name=qwen' (docs/llm.md)")
"""What an agent argument takes, for the help of every command that takes one."""


def _allow_fallbacks_help() -> str:
    from tabletop_gym.agents.llm import allow_fallbacks_help

    return allow_fallbacks_help()


def _choices(names: Any) -> str:
    return " or ".join(str(n) for n in names)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``tabletop-gym`` command."""
    from tabletop_gym.version import __version__

    p = argparse.ArgumentParser(prog="tabletop-gym", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"tabletop-gym {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train MaskablePPO on a registered env and evaluate it, "
                       "PPO self-play on Ray RLlib (--backend rllib), or masked PPO on the "
                       "batched JAX engine (--backend jax)")
    t.add_argument("--backend", default="sb3", choices=["sb3", "rllib", "jax"],
                   help="sb3: MaskablePPO against bots (default); rllib: multi-agent PPO "
                        "self-play on Ray RLlib (needs the rllib extra, docs/scale-out.md); jax: "
                        "masked PPO in one jitted program (needs the jax extra, docs/jax.md)")
    t.add_argument("--env", default=None,
                   help=f"{_choices(s.gym_id for s in game_specs())}, default "
                        f"{game_spec(default_game('sb3')).gym_id} (rllib: also the game names)")
    t.add_argument("--game", default=None,
                   help=f"jax: {_choices(game_names())}, default {default_game('batched')}")
    t.add_argument("--opponents", default=None,
                   choices=["self", "pool", "random", "heuristic-net"],
                   help="jax: who plays the other seats: the learner itself (self, default), "
                        "its past snapshots drawn by PFSP (pool), random moves, or the "
                        "network distilled from the heuristic (heuristic-net; the shipped one "
                        "unless --hp opponent_net=PATH)")
    t.add_argument("--seeds", type=int, default=None,
                   help="jax: independent learners trained in one program (default 1)")
    t.add_argument("--minutes", type=float, default=None,
                   help="jax: wall-clock budget (compile included)")
    t.add_argument("--players", type=int, default=None,
                   help="seats at the table (rllib default 2)")
    t.add_argument("--timesteps", type=int, default=None,
                   help="learner steps (jax: per seed; default 1,000,000 without --minutes)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--out", default="runs")
    t.add_argument("--n-envs", type=int, default=None,
                   help="sb3: in-process envs (default 8); jax: training games per seed (512)")
    t.add_argument("--iterations", type=int, default=None,
                   help="rllib: training iterations (default 20)")
    t.add_argument("--num-env-runners", type=int, default=None,
                   help="rllib: Ray actors stepping envs (default 0: in this process)")
    t.add_argument("--envs-per-runner", type=int, default=None,
                   help="rllib: envs each runner steps together (default 8)")
    t.add_argument("--address", default=None,
                   help="rllib: a running Ray cluster, auto or ray://host:10001 (default: "
                        "start Ray locally)")
    t.add_argument("--mapping", default=None, choices=["shared", "per_seat", "pool"],
                   help="rllib: one policy for all seats (shared, default), one per seat, or a "
                        "learner against a pool of its frozen snapshots")
    t.add_argument("--pool-size", type=int, default=None, help="rllib pool: snapshots (4)")
    t.add_argument("--refresh-every", type=int, default=None,
                   help="rllib pool: iterations between two refreshes (5)")
    t.add_argument("--eval-games", type=int, default=200)
    t.add_argument("--no-progress", action="store_true")
    t.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                   help="env kwargs, e.g. num_players=2 opponents=heuristic")
    t.add_argument("--hp", nargs="*", default=[], metavar="KEY=VALUE",
                   help="PPO settings over the defaults, e.g. net_arch=[64,64] "
                        "obs_scaling=none (see "
                        "tabletop_gym.tasks.recipes.recipe(env); rllib: "
                        "lr=1e-4 hiddens=[64,64], tabletop_gym.integrations.rllib."
                        "DEFAULT_HPARAMS; jax: num_steps=32 hidden=[256,256], "
                        "tabletop_gym.jax.train.TrainConfig)")
    t.add_argument("--time-limit", type=float, default=None,
                   help="stop training after this many seconds")
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("eval", help="evaluate an agent with seat rotation and 95%% CIs")
    e.add_argument("--game", default=default_game("eval"), choices=game_names())
    e.add_argument("--players", type=int, default=2)
    e.add_argument("--candidate", default="heuristic", help=AGENT_HELP)
    e.add_argument("--opponent", default="random", help=AGENT_HELP)
    e.add_argument("--allow-fallbacks", action="store_true", help=_allow_fallbacks_help())
    e.add_argument("--games", type=int, default=200)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--out", default=None, help="save <out>.csv and <out>.json")
    e.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    e.set_defaults(func=cmd_eval)

    x = sub.add_parser("exploit", help="how exploitable an agent is: train best responses to it "
                       "on the batched JAX engine over a budget ladder and score them against "
                       "it (docs/results.md, Exploitability)")
    x.add_argument("--game", default=default_game("exploit"), help="a game with a batched engine")
    x.add_argument("--players", type=int, default=2)
    x.add_argument("--agent", default="random",
                   help="random, jax-ppo, heuristic-net, jax:<checkpoint.npz>, search:<policy>?... "
                        "(trains against its network), or a Python-only agent (heuristic "
                        "trains against its distilled copy; another needs --proxy)")
    x.add_argument("--proxy", default=None,
                   help="jax:<checkpoint.npz>: a JAX copy of a Python-only agent to train "
                        "against (it is still scored against the real agent)")
    x.add_argument("--budgets", default="100000,300000,1000000",
                   help="learner steps per seed at which the best response is scored, "
                        "increasing, comma-separated")
    x.add_argument("--seeds", type=int, default=2)
    x.add_argument("--games", type=int, default=1000,
                   help="seat-rotated games of each seed's scoring, each seed on its own deals "
                        "(2 seeds of 1,000: about ±0.03 in win rate)")
    x.add_argument("--seed", type=int, default=0)
    x.add_argument("--out", default="benchmarks/exploit",
                   help="results folder (a file already there is not redone)")
    x.add_argument("--policies", default=None, help="keep each best response's checkpoint here")
    x.add_argument("--phase", choices=("both", "train", "score"), default="both",
                   help="train and score each rung, or either half alone through the "
                        "checkpoints kept in --policies (a device trains while CPU cores score)")
    x.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                   help="game config switches")
    x.add_argument("--hp", nargs="*", default=[], metavar="KEY=VALUE",
                   help="PPO settings over tabletop_gym.tasks.exploit.LADDER_SETTINGS, e.g. "
                        "num_envs=4096 hidden=[256,256]")
    x.set_defaults(func=cmd_exploit)

    lg = sub.add_parser("league", help="round robin with seat rotation, ratings and a heatmap")
    lg.add_argument("--game", default=default_game("league"), choices=game_names())
    lg.add_argument("--players", type=int, default=2)
    lg.add_argument("--agents", nargs="+", required=True, help=AGENT_HELP)
    lg.add_argument("--allow-fallbacks", action="store_true", help=_allow_fallbacks_help())
    lg.add_argument("--prices", default=None, metavar="FILE.json",
                    help='price table of the llm: agents\' tokens, {"MODEL or agent name": '
                         '{"prompt": USD, "completion": USD}} per million tokens, for the '
                         "cost column of the LLM report (docs/llm.md)")
    lg.add_argument("--games", type=int, default=40, help="games per pair")
    lg.add_argument("--seed", type=int, default=0)
    lg.add_argument("--bootstrap", type=int, default=1000)
    lg.add_argument("--out", default="runs/league")
    lg.add_argument("--no-heatmap", action="store_true", help="skip the PNG (no matplotlib)")
    lg.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    lg.set_defaults(func=cmd_league)

    ld = sub.add_parser("ladder", help="rate an agent against the frozen reference ladder "
                                       "(docs/llm.md)")
    ld.add_argument("--agent", default=None, help=AGENT_HELP)
    ld.add_argument("--games", type=int, default=100,
                    help="games against each member (the protocol's: 100)")
    ld.add_argument("--seed", type=int, default=0)
    ld.add_argument("--bootstrap", type=int, default=1000)
    ld.add_argument("--ladder", default=None, help="ladder file (default: the committed one)")
    ld.add_argument("--out", default=None, help="write the rating to this JSON file too")
    ld.add_argument("--allow-fallbacks", action="store_true", help=_allow_fallbacks_help())
    ld.add_argument("--refit", action="store_true",
                    help="fit the ladder itself (a round robin of its members) and write it")
    ld.add_argument("--games-per-pair", type=int, default=100, help="--refit: games per pair")
    ld.set_defaults(func=cmd_ladder)

    pl = sub.add_parser("play", help="play at the terminal against bots")
    pl.add_argument("--game", default=default_game("play"), choices=game_names())
    pl.add_argument("--players", type=int, default=2)
    pl.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1")
    pl.add_argument("--opponents", "--opponent", dest="opponents", default="heuristic",
                    help=f"one agent for every other seat, or one per other seat separated "
                         f"by commas: {AGENT_HELP}")
    pl.add_argument("--seed", type=int, default=0)
    pl.add_argument("--one-step-bid", action="store_true",
                    help="enter each simultaneous action as one decision instead of its "
                         "sub-decisions (" + _choices(s.title for s in game_specs()
                                                     if s.split_switch) + ")")
    pl.add_argument("--save-record", default=None, help="write the game record (JSON) here")
    pl.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    pl.set_defaults(func=cmd_play)

    r = sub.add_parser("replay", help="step through a saved game record or draw it as a GIF")
    r.add_argument("record", help="a game record written by play --save-record or record()")
    r.add_argument("--view", default="public", help="public (default) or a seat number")
    r.add_argument("--gif", default=None, help="write an animated GIF of the drawn table here")
    r.add_argument("--frames", default=None, help="write one PNG per frame into this folder")
    r.add_argument("--every", type=int, default=1, help="draw every N-th action (default 1)")
    r.add_argument("--delay", type=int, default=500, help="GIF milliseconds per frame")
    r.add_argument("--pause", action="store_true", help="wait for Enter after each action")
    r.add_argument("--prompts", action="store_true",
                   help="with --view SEAT: also print the full prompts of that seat's LLM agent")
    r.set_defaults(func=cmd_replay)

    sv = sub.add_parser("serve", help="play, watch and replay games in the browser (web extra)")
    sv.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default 127.0.0.1: this machine only)")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--runs", default="runs", help="folder whose game records can be replayed")
    sv.add_argument("--save", default="runs/web",
                    help="folder each finished game is written to as a record ('' : none)")
    sv.set_defaults(func=cmd_serve)

    b = sub.add_parser("bench", help="run bench/run.py (every further flag is passed on)",
                       description="Run bench/run.py of a source checkout; every flag after "
                       "'bench' (e.g. --quick, --reps N) is passed on to it unchanged.")
    b.add_argument("rest", nargs=argparse.REMAINDER, help="flags for bench/run.py")
    b.set_defaults(func=cmd_bench)

    from tabletop_gym.tasks.cli import add_suite_parser

    add_suite_parser(sub)
    from tabletop_gym.tasks.datasets.cli import add_dataset_parser

    add_dataset_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tabletop-gym`` command.

    A bad argument or input ends with one line on stderr and exit status 2, never a traceback.
    ``eval`` and ``league`` end with status 3 when a language model's results are invalid
    (docs/llm.md, "Invalid results"), unless ``--allow-fallbacks`` is given.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    line_buffered(sys.stdout)
    parser = build_parser()
    if argv and argv[0] == "bench":
        # bench/run.py owns its flags: forward everything after the command word.
        args = argparse.Namespace(func=cmd_bench, rest=argv[1:], command="bench")
    else:
        args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (CLIError, ValueError, OSError, ImportError) as exc:
        print(f"tabletop-gym {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tabletop-gym {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
