"""``tabletop-gym dataset``: make, merge, verify, describe and clone datasets (docs/datasets.md)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tabletop_gym.extras import require

_PARQUET = ("pyarrow",)
_MINARI = ("minari", "h5py")


def _policy(text: str) -> str | list[str]:
    return text.split(",") if "," in text else text


def cmd_make(args: argparse.Namespace) -> int:
    """Write a Minari dataset of a task's single-agent view, or a games dataset (Parquet)."""
    if args.format == "parquet":
        require("datasets", "dataset make --format parquet", _PARQUET)
        from tabletop_gym.tasks.datasets.games import write_games

        if args.out is None:
            raise ValueError("--format parquet needs --out FOLDER")
        if args.dataset_id is not None:
            raise ValueError("--dataset-id names a Minari dataset; --format parquet writes to "
                             "--out")
        ds = write_games(args.out, args.task, _policy(args.policy), args.episodes,
                         seed=args.seed, annotate=args.annotate,
                         annotated_games=args.annotated_games, progress=args.progress)
        making = ds.manifest["making"]
        print(f"{ds.folder}: {ds.num_games} games, {len(ds)} decisions, "
              f"{ds.path.stat().st_size} bytes, {making['decisions_per_second']} decisions/s "
              f"({making['decisions_per_cpu_second']} per CPU second)")
        return 0
    if args.out is not None or args.annotate is not None or args.annotated_games:
        raise ValueError("--out and --annotate belong to --format parquet; a Minari dataset "
                         "goes to MINARI_DATASETS_PATH under --dataset-id")
    if "," in args.policy:
        raise ValueError("a Minari dataset records one seat: give one --policy")
    require("datasets", "dataset make (a Minari dataset)", _MINARI)
    from tabletop_gym.tasks.datasets.minari_view import make_minari, making

    out = make_minari(args.task, args.policy, args.episodes, seed=args.seed,
                      dataset=args.dataset_id, progress=args.progress)
    made = making(out.spec.dataset_id)
    print(f"{out.spec.dataset_id}: {out.total_episodes} episodes, {out.total_steps} steps, "
          f"ref_min_score {out.storage.metadata['ref_min_score']}, ref_max_score "
          f"{out.storage.metadata['ref_max_score']}, {made['decisions_per_second']} "
          f"decisions/s ({made['decisions_per_cpu_second']} per CPU second)")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    """Join games datasets made in parts over consecutive deals into one."""
    require("datasets", "dataset merge", _PARQUET)
    from tabletop_gym.tasks.datasets.games import merge_games

    ds = merge_games(args.parts, args.out)
    print(f"{ds.folder}: {ds.num_games} games from {len(args.parts)} parts, {len(ds)} decisions, "
          f"{ds.annotated_decisions} annotated, {ds.path.stat().st_size} bytes")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Check a games dataset: manifest, checksum, schema and (unless told not to) a replay."""
    require("datasets", "dataset verify", _PARQUET)
    from tabletop_gym.tasks.datasets.games import GameDataset, check_replay

    ds = GameDataset(args.path)
    replayed = 0 if args.no_replay else check_replay(ds)
    summary: dict[str, Any] = {"path": str(ds.path), "games": ds.num_games,
                               "decisions": len(ds), "replayed": replayed,
                               "annotated": ds.annotated_decisions}
    print(json.dumps(summary))
    return 0


def cmd_clone(args: argparse.Namespace) -> int:
    """Behaviour cloning on a games dataset; the policy is saved for ``jax:<path>``."""
    require("datasets", "dataset clone", _PARQUET)
    from tabletop_gym.tasks.datasets.cloning import clone
    from tabletop_gym.tasks.datasets.games import GameDataset

    report = clone(GameDataset(args.path), args.out, hidden=_hidden(args.hidden),
                   epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, seed=args.seed)
    print(json.dumps({"out": args.out, **vars(report)}))
    return 0


def cmd_card(args: argparse.Namespace) -> int:
    """Write the card of a games dataset or (``--minari``) of a Minari dataset."""
    from tabletop_gym.tasks.datasets.cards import games_card, minari_card, save_card

    if args.minari:
        require("datasets", "dataset card --minari", _MINARI)
        card = minari_card(args.source)
    else:
        require("datasets", "dataset card", _PARQUET)
        card = games_card(args.source, name=args.name)
    print(f"{card['name']}: {card['decisions']} decisions; saved {save_card(card, args.out)}")
    return 0


def _hidden(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(h) for h in text.split(","))
    except ValueError:
        raise ValueError(f"--hidden takes widths separated by commas, got {text!r}") from None


def _annotate(text: str) -> int | str:
    """``--annotate``: a number of simulations, or a ``search:`` spec (checked where used)."""
    return int(text) if text.lstrip("-").isdigit() else text


def cmd_baseline(args: argparse.Namespace) -> int:
    """Make a games dataset, fit a policy to it and score the policy; write the result file."""
    require("datasets", "dataset baseline", _PARQUET)
    require("train", "dataset baseline", ("torch",))  # the learner, after minutes of games
    from tabletop_gym.tasks.datasets.offline import offline_baseline, save

    result = offline_baseline(args.source_task, args.policy, args.games, args.task,
                              epochs=args.epochs, hidden=_hidden(args.hidden), seed=args.seed,
                              method=args.method, alpha=args.alpha, gamma=args.gamma,
                              annotate=args.annotate, annotated_games=args.annotated_games,
                              value_weight=args.value_weight, value_passes=args.value_passes,
                              data=args.data)
    row = result["score"]["task"]
    fit = result["clone" if args.method == "bc" else "learner"]
    print(f"{args.task}: normalised {row['normalized']}, held-out accuracy "
          f"{fit['valid_accuracy']:.3f}; saved {save(result, args.out)}")
    return 0


def add_dataset_parser(sub: Any) -> None:
    """Add ``dataset`` and its commands (make, merge, verify, card, clone, baseline)."""
    p = sub.add_parser("dataset", help="game datasets for offline RL and imitation: Minari "
                       "datasets of a task's single-agent view, whole games as Parquet")
    ss = p.add_subparsers(dest="dataset_command", required=True)
    mk = ss.add_parser("make", help="play episodes with an agent and write them as a dataset")
    mk.add_argument("--task", required=True, help="a pinned task id (tabletop-gym suite list)")
    mk.add_argument("--policy", required=True,
                    help="agent spec (random, heuristic, ismcts:N:guided, jax-ppo, ...); "
                         "parquet: one per seat separated by commas, or one for all")
    mk.add_argument("--episodes", type=int, required=True, help="episodes (games) to record")
    mk.add_argument("--seed", type=int, default=0, help="the first episode's seed")
    mk.add_argument("--format", default="minari", choices=["minari", "parquet"],
                    help="minari: the learner seat's view of a solo or against-bots task "
                         "(default); parquet: every seat's decisions of whole games")
    mk.add_argument("--dataset-id", default=None,
                    help="minari: the id (default tabletop_gym/<task>/<policy>-v0)")
    mk.add_argument("--out", default=None, help="parquet: the folder to write")
    mk.add_argument("--annotate", type=_annotate, default=None, metavar="SIMULATIONS|SEARCH",
                    help="parquet: value every legal move by the guided ISMCTS with this many "
                         "simulations, or by a batched search (a search: spec, the jax extra)")
    mk.add_argument("--annotated-games", type=int, default=0,
                    help="parquet: how many games, from the first, are annotated")
    mk.add_argument("--progress", action="store_true", help="a line per finished episode")
    mk.set_defaults(func=cmd_make)
    mg = ss.add_parser("merge", help="join games datasets made in parts (dataset make --format "
                       "parquet over consecutive deals, one per core) into one")
    mg.add_argument("parts", nargs="+", help="the parts' folders, in the order of their deals")
    mg.add_argument("--out", required=True, help="the folder to write")
    mg.set_defaults(func=cmd_merge)
    vf = ss.add_parser("verify", help="check a games dataset against its manifest and replay "
                       "every game through the env")
    vf.add_argument("path", help="the dataset folder (or its manifest.json)")
    vf.add_argument("--no-replay", action="store_true", help="check the files only")
    vf.set_defaults(func=cmd_verify)
    cl = ss.add_parser("clone", help="behaviour cloning on a games dataset (needs torch); the "
                       "policy plays as jax:<out>")
    cl.add_argument("path", help="the games dataset folder")
    cl.add_argument("--out", required=True, help="the policy checkpoint to write (.npz)")
    cl.add_argument("--hidden", default="256,256", help="hidden widths (default 256,256)")
    cl.add_argument("--epochs", type=int, default=10)
    cl.add_argument("--batch-size", type=int, default=256)
    cl.add_argument("--lr", type=float, default=1e-3)
    cl.add_argument("--seed", type=int, default=0)
    cl.set_defaults(func=cmd_clone)
    cd = ss.add_parser("card", help="write a dataset's card (what, how many, command, commit, "
                       "licence, size, SHA-256, rate; its manifest or checksums whole)")
    cd.add_argument("source", help="the games dataset folder, or with --minari a Minari id")
    cd.add_argument("--minari", action="store_true", help="SOURCE is a Minari dataset's id "
                    "(looked up under MINARI_DATASETS_PATH)")
    cd.add_argument("--name", default=None, help="games: the card's name (default: the folder's)")
    cd.add_argument("--out", required=True, help="the card to write (.json)")
    cd.set_defaults(func=cmd_card)
    bl = ss.add_parser("baseline", help="an offline baseline from one command: play a games "
                       "dataset, fit a policy to it by behaviour cloning or CQL (needs torch) "
                       "and score it with the suite's protocol; the result file feeds "
                       "docs/datasets.md")
    bl.add_argument("--source-task", required=True, help="the task the dataset's games are of")
    bl.add_argument("--policy", required=True, help="the agent spec of every seat")
    bl.add_argument("--games", type=int, required=True, help="games in the dataset")
    bl.add_argument("--task", required=True, help="the task the clone is scored on")
    bl.add_argument("--epochs", type=int, default=10)
    bl.add_argument("--hidden", default="256,256", help="hidden widths (default 256,256)")
    bl.add_argument("--seed", type=int, default=0,
                    help="first deal of the dataset; the learner's seed")
    bl.add_argument("--method", default="bc", choices=["bc", "cql", "values"],
                    help="bc: behaviour cloning (default); cql: discrete conservative "
                         "Q-learning with action masks, the reward each seat's final return; "
                         "values: behaviour cloning plus a value head fitted to the search's "
                         "values of the annotated decisions, played as logits + beta * values")
    bl.add_argument("--alpha", type=float, default=1.0,
                    help="cql: weight of the conservative term (default 1)")
    bl.add_argument("--gamma", type=float, default=1.0,
                    help="cql: discount per own decision (default 1)")
    bl.add_argument("--annotate", type=_annotate, default=None, metavar="SIMULATIONS|SEARCH",
                    help="value every legal move of the first games' decisions by the guided "
                         "ISMCTS with this many simulations or by a search: spec (values needs "
                         "it)")
    bl.add_argument("--annotated-games", type=int, default=0,
                    help="how many games, from the first, are annotated (values: at least 2)")
    bl.add_argument("--value-weight", type=float, default=1.0,
                    help="values: weight of the value head's loss (default 1)")
    bl.add_argument("--value-passes", type=int, default=1,
                    help="values: passes over the annotated decisions per epoch (default 1)")
    bl.add_argument("--data", default=None,
                    help="a games dataset already made with these settings (dataset make "
                         "--format parquet), used instead of playing it again")
    bl.add_argument("--out", required=True, help="the result file to write (.json)")
    bl.set_defaults(func=cmd_baseline)
