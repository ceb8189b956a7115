"""Turn several results files into one markdown table and one plot.

The table has one row per task and one column per run (``score [95 % CI]``, then the normalised
score), and a last row with each run's interquartile mean of the normalised scores and its
stratified bootstrap interval. The plot shows the same aggregate, one point and interval per run,
beside the normalised score of each task.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Mapping, Sequence
from typing import Any

from tabletop_gym.agents.llm import FALLBACK_LIMIT
from tabletop_gym.provenance import commit_text
from tabletop_gym.tasks.runner import RESULTS_FORMAT, RESULTS_FORMAT_VERSION


class ReportError(ValueError):
    """A results file cannot be reported (wrong format, or a plot without matplotlib)."""


def load_results(paths: Sequence[str | pathlib.Path]) -> list[dict[str, Any]]:
    """Read results files, checking each is a suite results document of a known version.

    Raises:
        ReportError: On a file that is not a suite results document.
    """
    if not paths:
        raise ReportError("give at least one results file (made by `tabletop-gym suite run`)")
    runs = []
    for path in paths:
        p = pathlib.Path(path)
        try:
            doc = json.loads(p.read_text())
        except (OSError, json.JSONDecodeError) as err:
            raise ReportError(f"{p}: cannot read a JSON results file ({err})") from err
        if not isinstance(doc, dict) or doc.get("format") != RESULTS_FORMAT:
            raise ReportError(f"{p}: not a suite results file (its 'format' is not "
                              f"{RESULTS_FORMAT!r}); make one with `tabletop-gym suite run`")
        if doc.get("format_version") != RESULTS_FORMAT_VERSION:
            raise ReportError(f"{p}: results format version {doc.get('format_version')!r}; this "
                              f"package reads version {RESULTS_FORMAT_VERSION}")
        doc["_path"] = str(p)
        runs.append(doc)
    return runs


def _num(x: float | None, fmt: str = "{:.3f}") -> str:
    return "–" if x is None else fmt.format(x)


def _run_name(run: Mapping[str, Any]) -> str:
    return f"{run['agent']} ({run['suite']}, {len(run['protocol']['seeds'])} seeds)"


def markdown_table(runs: Sequence[Mapping[str, Any]]) -> str:
    """One row per task (in first-seen order), one column per run, and the aggregate row."""
    order: list[str] = []
    cells: dict[tuple[str, int], str] = {}
    for k, run in enumerate(runs):
        for row in run["tasks"]:
            if row["id"] not in order:
                order.append(row["id"])
            lo, hi = row["score_ci"]
            cells[(row["id"], k)] = (f"{_num(row['score'])} [{_num(lo)}, {_num(hi)}] · "
                                     f"{_num(row['normalized'], '{:.2f}')}"
                                     + (" **INVALID**" if row.get("invalid") else ""))
    head = ["task", *(_run_name(r) for r in runs)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for task_id in order:
        lines.append("| " + " | ".join(
            [f"`{task_id}`", *(cells.get((task_id, k), "not run") for k in range(len(runs)))]
        ) + " |")
    agg = []
    for run in runs:
        a = run["aggregate"]
        ci = a["iqm_ci"] or [None, None]
        agg.append(f"**{_num(a['iqm'], '{:.2f}')}** [{_num(ci[0], '{:.2f}')}, "
                   f"{_num(ci[1], '{:.2f}')}] over {len(a['tasks'])} tasks")
    lines.append("| IQM of normalised scores | " + " | ".join(agg) + " |")
    meta = sorted({(r["metadata"]["package_version"], commit_text(r["metadata"]["commit"]))
                   for r in runs})
    notes = [
        "",
        "Cells: mean return [95 % CI] · normalised score (0 = random agent, 1 = heuristic bot).",
        "IQM: interquartile mean over (seed, task) with a stratified bootstrap 95 % CI.",
        *([f"**INVALID**: more than {FALLBACK_LIMIT:.0%} of an LLM agent's moves on that task "
           "were fallback moves, "
           "so its score measures the fallback as much as the model (docs/llm.md, \"Invalid "
           "results\")."] if any(row.get("invalid") for run in runs for row in run["tasks"])
          else []),
        "Made by: " + "; ".join(f"tabletop-gym {v} at {c}" for v, c in meta) + ".",
    ]
    return "\n".join(lines + notes) + "\n"


def save_figure(fig: Any, path: str | pathlib.Path) -> pathlib.Path:
    """Save a results page's matplotlib figure at ``path`` and close it.

    The PNG carries no ``Software`` entry, so the same figure is the same bytes whatever
    matplotlib drew it (the pages' figures are committed and checked for staleness).
    """
    import matplotlib.pyplot as plt

    out = pathlib.Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90, metadata={"Software": None})
    plt.close(fig)
    return out


def plot(runs: Sequence[Mapping[str, Any]], path: str | pathlib.Path) -> pathlib.Path:
    """Aggregate IQM per run (left) and each task's normalised score per run (right).

    Raises:
        ReportError: When matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ReportError("the plot needs matplotlib (pip install 'tabletop-gym[train]'); "
                          "pass --no-plot to write the table only") from err
    names = [_run_name(r) for r in runs]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 0.6 * max(len(names), 4) + 2),
                                      gridspec_kw={"width_ratios": [1, 2]})
    for k, run in enumerate(runs):
        a = run["aggregate"]
        if a["iqm"] is None:
            continue
        lo, hi = a["iqm_ci"]
        left.errorbar([a["iqm"]], [k], xerr=[[a["iqm"] - lo], [hi - a["iqm"]]], fmt="o",
                      capsize=4)
    left.set_yticks(range(len(names)), names)
    left.invert_yaxis()
    left.axvline(0, color="grey", lw=0.8, ls=":")
    left.axvline(1, color="grey", lw=0.8, ls="--")
    left.set_xlabel("IQM normalised score (0 random, 1 heuristic)")
    task_ids: list[str] = []
    for run in runs:
        task_ids += [r["id"] for r in run["tasks"] if r["id"] not in task_ids]
    width = 0.8 / max(len(runs), 1)
    for k, run in enumerate(runs):
        by_id = {r["id"]: r["normalized"] for r in run["tasks"]}
        ys = [i + k * width for i in range(len(task_ids))]
        xs = [by_id.get(t) if by_id.get(t) is not None else 0.0 for t in task_ids]
        right.barh(ys, xs, height=width, label=names[k])
    right.set_yticks([i + 0.4 - width / 2 for i in range(len(task_ids))], task_ids, fontsize=7)
    right.invert_yaxis()  # first task on top, as in the table
    right.axvline(0, color="grey", lw=0.8, ls=":")
    right.axvline(1, color="grey", lw=0.8, ls="--")
    right.set_xlabel("normalised score per task")
    right.legend(fontsize=7)
    fig.tight_layout()
    out = pathlib.Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
