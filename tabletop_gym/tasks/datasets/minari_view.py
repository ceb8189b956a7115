"""Minari datasets of a task's single-agent view.

:func:`make_minari` plays episodes of a pinned single-agent task (``gymnasium.make(task_id,
observation_type="dict")``: the learner's seat against the task's pinned opponents, seats rotated
by the reset seed as the task rotates them) with the agent of a spec in the learner's seat, and
writes them with Minari's own ``create_dataset_from_buffers``. Each step holds the learner's
observation dict (its ``observation`` vector and its ``action_mask``), its action, its reward and
the termination. The dataset's ``ref_min_score`` and ``ref_max_score`` are the task's random and
heuristic reference scores (``tabletop_gym/tasks/reference_scores.json``), so
``minari.get_normalized_score(dataset, returns)`` is ``(returns - random) / (heuristic -
random)``, the results page's normalisation (:func:`tabletop_gym.arena.stats.normalize`).
``recover_environment()`` gives the task's env with the dict observations the data holds.

Minari keeps datasets under ``MINARI_DATASETS_PATH`` (default ``~/.minari/datasets``). Beside
Minari's ``data`` folder each dataset gets ``checksums.json`` (every data file's size and
SHA-256); :func:`load_minari` checks them before handing the folder to ``minari.load_dataset``,
so a truncated, changed or foreign dataset is one :class:`DatasetError` naming the file.
"""

from __future__ import annotations

import json
import pathlib
import re
import time
import warnings
from typing import Any

import numpy as np

from tabletop_gym.tasks.datasets.games import DatasetError, sha256, unknown_task

DATASET_VERSION = 0
"""The ``-vN`` of the ids :func:`dataset_id` gives; bumped when what a step holds changes."""
CHECKSUMS = "checksums.json"
CHECKSUM_FORMAT = "tabletop-gym-minari-checksums"


def _minari() -> Any:
    try:
        import minari
    except ImportError:
        raise ImportError('Minari datasets need minari: pip install "tabletop-gym[datasets]"'
                          ) from None
    return minari


def dataset_id(task_id: str, policy: str) -> str:
    """The Minari id of a task's dataset of ``policy``: ``tabletop_gym/<task id>/<policy>-v0``.

    Characters Minari's ids do not allow (``:`` of ``ismcts:200:guided``) become ``-``.
    """
    slug = re.sub(r"[^-\w]+", "-", policy).strip("-")
    return f"tabletop_gym/{task_id}/{slug}-v{DATASET_VERSION}"


def reference_scores(task_id: str) -> tuple[float, float]:
    """The task's random and heuristic reference scores (the results page's 0 and 1).

    Raises:
        ValueError: When the task is not a single-agent task, or has no references for its
            version.
    """
    from tabletop_gym.tasks import TASKS
    from tabletop_gym.tasks.runner import load_references

    if task_id not in TASKS:
        unknown_task(task_id)
    task = TASKS[task_id]
    if task.mode == "selfplay":
        raise ValueError(f"{task_id} is a self-play task; a Minari dataset is of one seat's "
                         "view of a solo or against-bots task (use --format parquet for whole "
                         "games)")
    ref = load_references().get("tasks", {}).get(task_id)
    if ref is None or ref.get("version") != task.version:
        raise ValueError(f"no reference scores for {task_id}; run `tabletop-gym suite "
                         "references` first")
    return float(ref["random"]["score"]), float(ref["heuristic"]["score"])


def make_minari(task_id: str, policy: str, episodes: int, seed: int = 0,
                dataset: str | None = None, progress: bool = False) -> Any:
    """Record ``episodes`` episodes of ``policy`` on a single-agent task as a Minari dataset.

    Episode ``i`` is ``reset(seed=seed + i)`` (the task's seat rotation puts the learner in seat
    ``(seed + i) mod players``); the learner's agent is built once from the spec (seeded with
    ``seed``) and chooses with ``choose_action``, so a search agent is handed the state it
    determinizes.

    Args:
        task_id: A pinned solo or against-bots task.
        policy: The agent spec in the learner's seat.
        episodes: How many episodes.
        seed: The first episode's seed and the agent's.
        dataset: The Minari id (default :func:`dataset_id`).
        progress: Print one line per finished episode on stderr.

    Returns:
        The ``minari.MinariDataset`` written, with ``making`` (seconds and decisions per second)
        in its ``checksums.json``.

    Raises:
        ValueError: On a bad count, task or policy, or an id that exists (before any episode).
    """
    minari = _minari()
    import gymnasium
    from minari.data_collector.episode_buffer import EpisodeBuffer

    from tabletop_gym.agents.base import choose_action
    from tabletop_gym.agents.kinds import check_spec, make_agent
    from tabletop_gym.version import __version__
    from tabletop_gym.wrappers.single_agent import SingleAgentEnv

    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes must be a positive integer, got {episodes!r}")
    low, high = reference_scores(task_id)
    name = dataset or dataset_id(task_id, policy)
    minari.dataset.minari_dataset.parse_dataset_id(name)  # a malformed id: Minari's ValueError
    path = pathlib.Path(minari.storage.get_dataset_path(name))
    if path.exists():
        raise ValueError(f"a Minari dataset {name} already exists at {path}; delete it or give "
                         "another id")
    check_spec(policy)
    env = gymnasium.make(task_id, observation_type="dict")
    inner = env.unwrapped
    assert isinstance(inner, SingleAgentEnv)  # what every single-agent task makes
    aec = inner.aec
    agent = make_agent(policy, aec.game, aec.observer, np.random.default_rng(seed))
    buffers = []
    decisions = 0
    start = time.perf_counter()
    cpu = time.process_time()
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        seen = [obs]
        actions: list[int] = []
        rewards: list[float] = []
        terminations: list[bool] = []
        truncations: list[bool] = []
        done = False
        while not done:
            action = int(choose_action(agent, aec, aec.agent_selection))
            obs, reward, terminated, truncated, _ = env.step(action)
            seen.append(obs)
            actions.append(action)
            rewards.append(float(reward))
            terminations.append(bool(terminated))
            truncations.append(bool(truncated))
            done = terminated or truncated
        decisions += len(actions)
        # One episode's arrays at once: Minari's DataCollector appends every step through a
        # tree map (and needs JAX for it), some 70 times slower than the env here.
        buffers.append(EpisodeBuffer(
            id=i, seed=seed + i,
            observations={k: np.stack([o[k] for o in seen]) for k in seen[0]},
            actions=np.asarray(actions, np.int64), rewards=rewards, terminations=terminations,
            truncations=truncations))
        if progress:
            import sys

            print(f"episode {i + 1}/{episodes}: return {sum(rewards):+.2f}", file=sys.stderr,
                  flush=True)
    with warnings.catch_warnings():
        # Minari asks for a contact address and a permalink; the dataset names the package
        # version and commit instead (in its requirements and checksums.json).
        warnings.filterwarnings("ignore", message=".*(author_email|code_permalink).*")
        out = minari.create_dataset_from_buffers(
            dataset_id=name,
            buffer=buffers,
            env=env,
            eval_env=env.spec,
            algorithm_name=policy,
            author="tabletop-gym",
            ref_min_score=low,
            ref_max_score=high,
            description=(f"{episodes} episodes of {policy!r} in the learner's seat of "
                         f"{task_id} (seed {seed}, seats rotated by the reset seed); "
                         "observations are the seat's dict (observation vector, action mask); "
                         "ref_min_score and ref_max_score are the task's random and heuristic "
                         "references (the results page's normalisation)."),
            data_format="hdf5",
            requirements=[f"tabletop-gym=={__version__}"],
        )
    env.close()
    seconds = time.perf_counter() - start  # playing and writing
    cpu = time.process_time() - cpu
    write_checksums(path, making={
        "seconds": round(seconds, 3), "decisions": decisions,
        "decisions_per_second": round(decisions / seconds, 1),
        "cpu_seconds": round(cpu, 3),
        "decisions_per_cpu_second": round(decisions / max(cpu, 1e-9), 1),
        "command": f"tabletop-gym dataset make --task {task_id} --policy {policy} "
                   f"--episodes {episodes} --seed {seed}"})
    return out


def making(name: str) -> dict[str, Any]:
    """How a dataset written by :func:`make_minari` was made (time, decisions, command)."""
    folder = pathlib.Path(_minari().storage.get_dataset_path(name))
    doc = json.loads((folder / CHECKSUMS).read_text(encoding="utf-8"))
    return dict(doc.get("making") or {})


def write_checksums(folder: pathlib.Path, making: dict[str, Any] | None = None) -> pathlib.Path:
    """Write ``checksums.json`` of every file under ``folder/data`` (sizes and SHA-256)."""
    from tabletop_gym.provenance import metadata as provenance

    data = folder / "data"
    files = {str(p.relative_to(folder)): {"bytes": p.stat().st_size, "sha256": sha256(p)}
             for p in sorted(data.rglob("*")) if p.is_file()}
    doc = {"format": CHECKSUM_FORMAT, "version": 1, "files": files, "making": making,
           "provenance": provenance()}
    out = folder / CHECKSUMS
    out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return out


def load_minari(name: str, read_all: bool = True) -> Any:
    """``minari.load_dataset(name)`` after checking the dataset's files against its checksums.

    Args:
        name: The Minari id.
        read_all: Also read every episode once through Minari (it reads lazily otherwise).

    Raises:
        DatasetError: Naming the file: no such dataset, no checksums (not one of ours), a file
            missing, added, truncated or changed, or one Minari cannot read.
    """
    minari = _minari()
    folder = pathlib.Path(minari.storage.get_dataset_path(name))
    listed = folder / CHECKSUMS
    if not (folder / "data").is_dir():
        raise DatasetError(f"{folder}: no Minari dataset {name} here (MINARI_DATASETS_PATH is "
                           "where Minari looks)")
    try:
        doc = json.loads(listed.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{listed}: missing; a tabletop-gym Minari dataset has its checksums "
                           "beside its data (this one was not written by make_minari)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DatasetError(f"{listed}: not JSON ({err})") from None
    if not isinstance(doc, dict) or doc.get("format") != CHECKSUM_FORMAT:
        raise DatasetError(f"{listed}: not a tabletop-gym checksum file")
    files = doc.get("files")
    if not isinstance(files, dict):
        raise DatasetError(f"{listed}: malformed (no 'files' table)")
    present = {str(p.relative_to(folder)) for p in (folder / "data").rglob("*") if p.is_file()}
    for extra in sorted(present - set(files)):
        raise DatasetError(f"{folder / extra}: not listed in {CHECKSUMS}: added after the "
                           "dataset was written")
    for rel, entry in files.items():
        p = folder / rel
        if not p.is_file():
            raise DatasetError(f"{p}: missing; {CHECKSUMS} lists it")
        size = p.stat().st_size
        if size != entry.get("bytes"):
            raise DatasetError(f"{p}: is {size} bytes, {CHECKSUMS} says {entry.get('bytes')}: "
                               "truncated or replaced since it was written")
        if sha256(p) != entry.get("sha256"):
            raise DatasetError(f"{p}: SHA-256 differs from {CHECKSUMS}'s: the file was changed "
                               "after it was written")
    try:
        out = minari.load_dataset(name)
        if read_all:
            # Minari reads an episode's files only when it is asked for; one pass now makes a
            # file it cannot read this error rather than a traceback in the middle of training.
            for _ in out.iterate_episodes():
                pass
    except Exception as err:  # Minari raises what its storage raises; the file is named here
        raise DatasetError(f"{folder / 'data'}: Minari cannot load it "
                           f"({type(err).__name__}: {err})") from None
    return out
