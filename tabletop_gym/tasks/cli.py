"""``tabletop-gym suite``: list, describe, run, report, and regenerate the committed files."""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import re
import sys
import time
from typing import Any

DOCS_PAGE = pathlib.Path("docs") / "tasks.md"
SNAPSHOT = pathlib.Path("tests") / "data" / "tasks_snapshot.json"


def parse_agents(items: list[str]) -> Any:
    """``--agent`` values: one spec for every game, or ``game=spec`` pairs (one per game).

    A spec ending in ``.zip`` is loaded as a MaskablePPO checkpoint. A spec whose extra is missing
    is refused before anything is played.
    """
    from tabletop_gym.agents.kinds import require_agent
    from tabletop_gym.tasks import GAMES

    def load(text: str) -> Any:
        require_agent(text)
        if text.endswith(".zip"):
            if not pathlib.Path(text).exists():
                raise SystemExit(f"--agent {text}: no such checkpoint file")
            from sb3_contrib import MaskablePPO

            return MaskablePPO.load(text, device="cpu")
        return text

    if not items:
        raise SystemExit("give --agent (random, heuristic, a checkpoint .zip, or game=spec)")
    per_game = [i for i in items if "=" in i and i.split("=", 1)[0] in GAMES]
    if per_game and len(per_game) != len(items):
        raise SystemExit("give either one --agent for every game, or game=spec for each game")
    if not per_game:
        if len(items) > 1:
            raise SystemExit("give one --agent, or one game=spec per game "
                             f"({', '.join(GAMES)})")
        return load(items[0])
    return {g: load(spec) for g, spec in (i.split("=", 1) for i in per_game)}


def cmd_list(args: argparse.Namespace) -> int:
    """Print the suites and their tasks."""
    from tabletop_gym.tasks import SUITES, TASKS
    from tabletop_gym.tasks.runner import load_references, protocol_deals

    refs = load_references()
    for s in SUITES.values():
        print(f"{s.name}: {s.description} ({len(s.task_ids)} tasks, {s.seeds} seeds)")
        for t in s.task_ids:
            deals = protocol_deals(TASKS[t], refs)
            per = f"{deals} deals per seed" if deals else "no references yet"
            print(f"  {t:<32} {TASKS[t].description} ({per})")
    return 0


def cmd_describe(args: argparse.Namespace) -> int:
    """Print every pinned setting of an id as JSON."""
    from tabletop_gym.tasks import describe

    try:
        print(json.dumps(describe(args.task), indent=1, ensure_ascii=False))
    except KeyError as err:
        print(err.args[0], file=sys.stderr)
        return 2
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """Score an agent on a suite and write the results file."""
    from tabletop_gym.tasks.runner import run_suite, write_results

    agent = parse_agents(args.agent)
    label = args.label or "+".join(a.replace("=", "-") for a in args.agent)
    from tabletop_gym.agents.llm import invalid_results_told_once, tell_invalid

    try:
        with invalid_results_told_once():
            results = run_suite(args.suite, agent, seeds=args.seeds, deals_per_seed=args.deals,
                                task_ids=args.task or None, agent_label=label,
                                bootstrap_reps=args.bootstrap_reps)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.held_out:
        from tabletop_gym.tasks import TASKS, held_out

        cpu0 = time.process_time()
        for row in results["tasks"]:
            task = TASKS[row["id"]]
            if held_out.applies(task):
                spec = agent[task.game] if isinstance(agent, dict) else agent
                row["held_out"] = held_out.score(task, spec)
        results["held_out_cpu_seconds"] = round(time.process_time() - cpu0, 1)
    if args.out:
        out = pathlib.Path(args.out)
    else:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", pathlib.Path(label).stem)
        out = pathlib.Path("results") / f"{args.suite}-{safe}-{stamp}.json"
    write_results(results, out)
    from tabletop_gym.tasks.report import markdown_table

    print(markdown_table([results]))
    print(f"saved {out}")
    return tell_invalid("suite run", {f"{results['agent']} on {task}": why
                                      for task, why in results["invalid"].items()},
                        args.allow_fallbacks)


def cmd_report(args: argparse.Namespace) -> int:
    """Markdown table (and plot) of several results files."""
    from tabletop_gym.extras import figure_note
    from tabletop_gym.tasks.report import ReportError, load_results, markdown_table, plot

    note = None if args.no_plot else figure_note("the plot", "--no-plot")
    if note is not None:
        print(note, file=sys.stderr)
    try:
        runs = load_results(args.files)
        table = markdown_table(runs)
        out = pathlib.Path(args.out) if args.out else None
        if out:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(table)
            print(f"saved {out}")
        else:
            print(table)
        if not args.no_plot and note is None:
            png = args.plot or (out.with_suffix(".png") if out else "report.png")
            print(f"saved {plot(runs, png)}")
    except ReportError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


def cmd_references(args: argparse.Namespace) -> int:
    """Recompute the random and heuristic reference scores (all tasks, or --task ones merged)."""
    from tabletop_gym.tasks.runner import REFERENCE_FILE, compute_references

    out = pathlib.Path(args.out) if args.out else REFERENCE_FILE
    # Written after every task and resumed from what is there under the same protocol.
    compute_references(args.task or None, seeds=args.seeds, min_games=args.min_games,
                       half_width=args.half_width, jobs=args.jobs, progress=True, out=out)
    print(f"saved {out}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    """Train one agent per (task, seed) by a recipe and score each by the protocol."""
    from tabletop_gym.tasks.train import train_suite

    try:
        doc = train_suite(args.suite, args.algo, seeds=args.seeds, out=args.out,
                          timesteps=args.timesteps, task_ids=args.task or None,
                          deals_per_seed=args.deals, eval_seeds=args.eval_seeds, progress=True,
                          only_seeds=args.seed or None)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    agg = doc["aggregate"]
    if agg["iqm"] is None:
        print(f"{args.algo} on {args.suite}: no training seed finished on every task yet")
    else:
        lo, hi = agg["iqm_ci"]
        print(f"{args.algo} on {args.suite}: IQM {agg['iqm']:.3f} [{lo:.3f}, {hi:.3f}] over "
              f"{agg['runs']} training seeds x {len(agg['tasks'])} tasks")
    print(f"saved {pathlib.Path(args.out) / args.algo / 'results.json'}")
    return 0


def cmd_held_out(args: argparse.Namespace) -> int:
    """Score the random agent and the heuristic bot against the held-out population."""
    from tabletop_gym.tasks import held_out, suite_tasks

    held_out.compute_references(suite_tasks(args.suite), out=args.out, progress=True)
    print(f"saved {args.out}")
    return 0


def cmd_results(args: argparse.Namespace) -> int:
    """Regenerate the results pages from the committed files.

    docs/results.md and its figure, and docs/baselines.md beside it from docs/baselines.json
    (which ``make baselines`` measures).
    """
    from tabletop_gym.tasks import results

    baselines = results.baselines_page(args.out)
    if args.check:
        pages = [(args.out, results.check(args.root, args.out))]
        if baselines is not None:
            pages.append((baselines, results.check_baselines(args.out)))
        for page, current in pages:
            if current:
                print(f"{page} is current")
            else:
                print(f"{page} is stale: run `tabletop-gym suite results`", file=sys.stderr)
        return 0 if all(current for _, current in pages) else 1
    from tabletop_gym.extras import figure_note

    note = None if args.no_figure else figure_note(f"the figure {args.figure}", "--no-figure")
    if note is not None:
        print(note, file=sys.stderr)
    figure = None if args.no_figure or note is not None else args.figure
    results.write(args.root, args.out, figure)
    print(f"saved {args.out}" + ("" if figure is None else f" and {figure}"))
    if results.write_baselines(args.out) is not None:
        print(f"saved {baselines}")
    return 0


def cmd_leagues(args: argparse.Namespace) -> int:
    """Play the results page's leagues that are not written yet (or the ones named)."""
    from tabletop_gym.tasks import leagues

    names = args.league or [n for n in leagues.LEAGUES
                            if not (pathlib.Path(args.out) / f"{n}.json").is_file()]
    from tabletop_gym.agents.kinds import require_agent

    for name in names:  # every agent of every league is checked before the first game
        for spec in leagues.LEAGUES[name].agents if name in leagues.LEAGUES else ():
            require_agent(spec)
    for name in names:
        try:
            doc = leagues.play(name, root=args.root, out=args.out)
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        print(doc["markdown"])
        print(f"saved {pathlib.Path(args.out) / (name + '.json')}")
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    """Write docs/tasks.md from the registry."""
    from tabletop_gym.tasks.catalog import docs_page

    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(docs_page())
    print(f"saved {out}")
    return 0


def cmd_snapshot(args: argparse.Namespace) -> int:
    """Write the registry snapshot the version test compares against."""
    from tabletop_gym.tasks.catalog import snapshot

    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(snapshot(), indent=1, ensure_ascii=False) + "\n")
    print(f"saved {out}")
    return 0


def add_suite_parser(sub: Any) -> None:
    """Add ``suite`` and its subcommands to the ``tabletop-gym`` parser."""
    from tabletop_gym.tasks import SUITES, TASKS
    from tabletop_gym.tasks.runner import MIN_REFERENCE_GAMES, TARGET_HALF_WIDTH

    p = sub.add_parser("suite", help="benchmark tasks and suites: list, describe, run, report")
    ss = p.add_subparsers(dest="suite_command", required=True)

    ls = ss.add_parser("list", help="the suites and their tasks")
    ls.set_defaults(func=cmd_list)

    d = ss.add_parser("describe", help="every pinned setting of a task id (JSON)")
    d.add_argument("task")
    d.set_defaults(func=cmd_describe)

    r = ss.add_parser("run", help="score an agent on every task of a suite")
    r.add_argument("--suite", default="core", choices=sorted(SUITES))
    r.add_argument("--agent", action="append", default=[], metavar="SPEC",
                   help="random, heuristic, another opponent name, a checkpoint .zip, a "
                        "language model as llm:MODEL@BASE_URL (docs/llm.md), or game=spec "
                        "(repeat, one per game)")
    r.add_argument("--seeds", type=int, default=None, help="evaluation seeds (suite default)")
    r.add_argument("--deals", type=int, default=None,
                   help="deals per seed (default: each task's, by the protocol)")
    r.add_argument("--task", action="append", default=[], choices=list(TASKS),
                   metavar="TASK_ID", help="only this task of the suite (repeatable)")
    r.add_argument("--label", default=None, help="agent name written to the results")
    r.add_argument("--out", default=None, help="results file (default results/<suite>-...json)")
    r.add_argument("--bootstrap-reps", type=int, default=2000)
    from tabletop_gym.agents.llm import allow_fallbacks_help

    r.add_argument("--allow-fallbacks", action="store_true", help=allow_fallbacks_help())
    r.add_argument("--held-out", action="store_true",
                   help="also score the agent against the held-out population on every "
                        "multi-player task (tabletop_gym.tasks.held_out)")
    r.set_defaults(func=cmd_run)

    rep = ss.add_parser("report", help="markdown table and plot of results files")
    rep.add_argument("files", nargs="+")
    rep.add_argument("--out", default=None, help="write the table here (default: print it)")
    rep.add_argument("--plot", default=None, help="plot file (default: <out>.png)")
    rep.add_argument("--no-plot", action="store_true", help="write the table only")
    rep.set_defaults(func=cmd_report)

    from tabletop_gym.tasks.train import RECIPES

    tr = ss.add_parser("train", help="train one agent per (task, seed) by a recipe, resumable")
    tr.add_argument("--suite", default="core", choices=sorted(SUITES))
    tr.add_argument("--algo", required=True, choices=sorted(RECIPES))
    tr.add_argument("--seeds", type=int, default=5, help="training seeds 0..N-1")
    tr.add_argument("--seed", action="append", type=int, default=[], metavar="K",
                    help="only training seed K of 0..N-1 (repeatable; a process per seed)")
    tr.add_argument("--timesteps", type=int, default=None, help="budget (the recipe's default)")
    tr.add_argument("--task", action="append", default=[], choices=list(TASKS),
                    metavar="TASK_ID", help="only this task of the suite (repeatable)")
    tr.add_argument("--deals", type=int, default=None,
                    help="score on this many deals per seed (default: the protocol's)")
    tr.add_argument("--eval-seeds", type=int, default=None, help="evaluation seeds")
    tr.add_argument("--out", default="results/suite-train")
    tr.set_defaults(func=cmd_train)

    ref = ss.add_parser("references", help="recompute the committed reference scores")
    ref.add_argument("--task", action="append", default=[], choices=list(TASKS),
                     metavar="TASK_ID", help="only this task, merged into the file (repeatable)")
    ref.add_argument("--seeds", type=int, default=SUITES["full"].seeds)
    ref.add_argument("--min-games", type=int, default=MIN_REFERENCE_GAMES,
                     help="fewest games per agent and task")
    ref.add_argument("--half-width", type=float, default=TARGET_HALF_WIDTH,
                     help="target half-width of the heuristic's interval, normalised")
    ref.add_argument("--jobs", type=int, default=1)
    ref.add_argument("--out", default=None)
    ref.set_defaults(func=cmd_references)

    ho = ss.add_parser("held-out", help="the references against the held-out opponent population "
                       "(random and heuristic on every multi-player task of a suite; resumable)")
    ho.add_argument("--suite", default="core", choices=sorted(SUITES))
    ho.add_argument("--out", default="benchmarks/held-out/references.json")
    ho.set_defaults(func=cmd_held_out)

    res = ss.add_parser("results", help="regenerate the results page (and the baselines page "
                        "beside it) from the committed results")
    res.add_argument("--root", default="benchmarks", help="the committed results files")
    res.add_argument("--out", default="docs/results.md",
                     help="the results page; docs/baselines.md beside it is rewritten from the "
                          "baselines.json there")
    res.add_argument("--figure", default="docs/img/results.png")
    res.add_argument("--no-figure", action="store_true", help="write the page only")
    res.add_argument("--check", action="store_true",
                     help="fail when a page differs from what the files give")
    res.set_defaults(func=cmd_results)

    lgs = ss.add_parser("leagues", help="play the results page's leagues (those not written "
                        "yet, or --league NAME)")
    lgs.add_argument("--league", action="append", default=[],
                     help="this league (repeatable; default: every one not yet written); a "
                          "round robin written before keeps the games of the pairs it would "
                          "play again and plays only the rest")
    lgs.add_argument("--root", default="benchmarks", help="where the learned checkpoints are")
    lgs.add_argument("--out", default="benchmarks/leagues")
    lgs.set_defaults(func=cmd_leagues)

    doc = ss.add_parser("docs", help="regenerate docs/tasks.md from the registry")
    doc.add_argument("--out", default=str(DOCS_PAGE))
    doc.set_defaults(func=cmd_docs)

    snap = ss.add_parser("snapshot", help="regenerate the registry snapshot of the tests")
    snap.add_argument("--out", default=str(SNAPSHOT))
    snap.set_defaults(func=cmd_snapshot)
