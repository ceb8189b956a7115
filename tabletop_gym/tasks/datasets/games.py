"""The multi-agent whole-game format: one Parquet row per decision, checksummed by a manifest.

A games dataset is a folder holding ``games.parquet`` and ``manifest.json``. Every row is one
decision of one game, in the order the games were played: the seat that acted, what that seat saw
(its observation vector and action mask, exactly as ``env.observe`` gave them), the action it
chose, the action's public string (what a spectator may know of it, ``public_action_string``),
and every seat's final return. Replaying a game is ``env.reset(seed=deal_seed)`` on the env the
metadata names, then the rows' actions in order (:func:`check_replay` does it and compares every
row with the env).

Columns (format version 1; :func:`schema`):

================= =========================== ==================================================
column            type                        meaning
================= =========================== ==================================================
``game_index``    int32                       the game's index in the file (0, 1, ...)
``game``          string                      the game (``"positano"``, ``"rapa_nui"``)
``config``        string (JSON)               the env's keywords (game config and env settings)
``deal_seed``     int64                       ``env.reset(seed=deal_seed)`` deals this game
``step``          int32                       the decision's index in its game (0, 1, ...)
``seat``          int8                        the engine seat that acted (``player_k`` is seat k)
``policy``        string                      the agent spec of that seat
``observation``   fixed list of float32       that seat's observation vector
``action_mask``   fixed list of int8          that seat's legal actions (1: legal)
``action``        int32                       the action it chose
``action_string`` string                      its public string (seat-safe: no hidden content)
``returns``       fixed list of float32       every seat's final return, by seat
``search_actions`` list of int16, or null     annotated rows: every legal action, ascending
``search_values`` list of float32, or null    its value from the guided search (in [0, 1])
================= =========================== ==================================================

The file's schema metadata (key ``tabletop_gym``) and the manifest hold the format and its
version, the task, the env keywords, each seat's policy, the first deal seed, the number of games
and decisions, the annotation's settings, and the provenance of the code that made it. The
manifest adds the file's size and SHA-256; :class:`GameDataset` refuses a file whose size or
checksum differ, one that is not Parquet, one of another format or a newer version, and rows that
break the schema, each with one :class:`DatasetError` naming the file and what is wrong.

Example:
    >>> import tempfile
    >>> from tabletop_gym.tasks.datasets.games import GameDataset, write_games
    >>> folder = tempfile.mkdtemp()
    >>> ds = write_games(folder, "RapaNui-2p-SelfPlay-v0", "random", games=2, seed=0)
    >>> ds.num_games, ds.arrays()["observation"].shape[1]
    (2, 213)
    >>> GameDataset(folder).sample(4, seed=0)["action"].shape
    (4,)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import pathlib
import shlex
import time
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

import numpy as np

FORMAT = "tabletop-gym-games"
FORMAT_VERSION = 1
"""Bumped by any change of the columns or their meaning; the reader reads versions up to it."""
DATA_NAME = "games.parquet"
MANIFEST_NAME = "manifest.json"
META_KEY = b"tabletop_gym"
"""Key of the format's metadata in the Parquet schema."""
COLUMNS = ("game_index", "game", "config", "deal_seed", "step", "seat", "policy", "observation",
           "action_mask", "action", "action_string", "returns", "search_actions",
           "search_values")


class DatasetError(ValueError):
    """A dataset file that cannot be read as what it claims to be (the message names it)."""


def _pa() -> Any:
    try:
        import pyarrow
    except ImportError:
        raise ImportError('game datasets need pyarrow: pip install "tabletop-gym[datasets]"'
                          ) from None
    return pyarrow


def schema(obs_size: int, num_actions: int, num_players: int,
           metadata: dict[str, Any] | None = None) -> Any:
    """The Arrow schema of a games file for these sizes (format version 1)."""
    pa = _pa()
    fields = [
        pa.field("game_index", pa.int32(), nullable=False),
        pa.field("game", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("config", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("deal_seed", pa.int64(), nullable=False),
        pa.field("step", pa.int32(), nullable=False),
        pa.field("seat", pa.int8(), nullable=False),
        pa.field("policy", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("observation", pa.list_(pa.float32(), obs_size), nullable=False),
        pa.field("action_mask", pa.list_(pa.int8(), num_actions), nullable=False),
        pa.field("action", pa.int32(), nullable=False),
        pa.field("action_string", pa.string(), nullable=False),
        pa.field("returns", pa.list_(pa.float32(), num_players), nullable=False),
        pa.field("search_actions", pa.list_(pa.int16())),
        pa.field("search_values", pa.list_(pa.float32())),
    ]
    meta = None if metadata is None else {META_KEY: json.dumps(metadata, sort_keys=True)}
    return pa.schema(fields, metadata=meta)


def sha256(path: pathlib.Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- writing -------------------------------------------------------------------------------------


def _seat_policies(policy: str | Sequence[str], n: int) -> list[str]:
    specs = [policy] * n if isinstance(policy, str) else list(policy)
    if len(specs) != n:
        raise ValueError(f"give one policy for every seat ({n}) or one for all, got {len(specs)}")
    if not all(isinstance(s, str) and s for s in specs):
        raise ValueError(f"policies are agent specs (strings such as 'heuristic'), got {specs!r}")
    return specs


def unknown_task(task_id: str) -> NoReturn:
    """Raise for a name that is no pinned task.

    Raises:
        ValueError: Always: close ids for an unknown one, or that a configurable id is not a
            pinned task.
    """
    from tabletop_gym.tasks import describe

    try:
        describe(task_id)
    except KeyError as err:
        raise ValueError(err.args[0]) from None
    raise ValueError(f"{task_id!r} is a configurable id; give a pinned task id")


def _env_for(task_id: str) -> tuple[Any, str, dict[str, Any]]:
    """The raw AEC env of a task's game with the task's config, its game and env keywords."""
    from tabletop_gym.arena.envs import raw_env_factory
    from tabletop_gym.tasks import TASKS

    if task_id not in TASKS:
        unknown_task(task_id)
    task = TASKS[task_id]
    kwargs = {**dict(task.config), **task.env_settings}
    return raw_env_factory(task.game)(**kwargs), task.game, kwargs


def write_games(
    out: str | pathlib.Path,
    task: str,
    policy: str | Sequence[str],
    games: int,
    seed: int = 0,
    annotate: int | str | None = None,
    annotated_games: int = 0,
    progress: bool = False,
) -> GameDataset:
    """Play ``games`` games of a task's game and write them as a games dataset in ``out``.

    Game ``i`` is dealt by ``env.reset(seed=seed + i)``; every seat's agent is built afresh for
    each game (``make_agent``, from one generator seeded with ``seed``), as ``evaluate`` builds
    them, and chooses with ``choose_action`` (a search agent is handed the state it
    determinizes, a text agent its text view).

    Args:
        out: The folder to write (created; an existing dataset in it is refused).
        task: A pinned task id; its game config and env settings are the env's.
        policy: One agent spec for every seat, or one per seat.
        games: How many games.
        seed: The first deal seed and the agents' seed.
        annotate: The search that values every legal move of the annotated decisions: a number
            of simulations of the guided ISMCTS, or a batched ``search:`` spec (the ``jax``
            extra), searched with every legal move a candidate (:func:`annotation_search`);
            ``None``: no annotations.
        annotated_games: How many games, from the first, have every decision with a choice
            annotated.
        progress: Print one line per finished game on stderr.

    Raises:
        ValueError: On a bad count, policy, task or annotation budget (before anything is
            played or written).
    """
    pa = _pa()

    from tabletop_gym.agents.base import choose_action
    from tabletop_gym.agents.ismcts import ISMCTSAgent
    from tabletop_gym.agents.kinds import check_spec, make_agent
    from tabletop_gym.provenance import metadata as provenance

    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    search = None if annotate is None else annotation_search(annotate)
    if not 0 <= annotated_games <= games or (annotated_games and annotate is None):
        raise ValueError(f"annotated_games must be in 0..{games} and needs annotate, got "
                         f"{annotated_games!r}")
    folder = pathlib.Path(out)
    if (folder / MANIFEST_NAME).exists() or (folder / DATA_NAME).exists():
        raise ValueError(f"{folder} already holds a games dataset; choose another folder")
    env, game, kwargs = _env_for(task)
    n = env.game.num_players
    specs = _seat_policies(policy, n)
    for spec in specs:
        check_spec(spec)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for spec in specs:  # an unknown name fails here, before any game is played
        make_agent(spec, env.game, env.observer, np.random.default_rng(0))
    annotator: Any = None
    if isinstance(annotate, int):
        # Every legal move is a root candidate (the width covers the action space), so each
        # one gets its own value, each paired with the heuristic's move on the same deals.
        annotator = ISMCTSAgent(env.game, env.observer, seed, simulations=annotate,
                                rollout="guided", width=max(2, env.game.num_distinct_actions))
    elif search is not None:
        annotator = make_agent(search, env.game, env.observer, np.random.default_rng(seed))
    cols: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    config_text = json.dumps(kwargs, sort_keys=True)
    start = time.perf_counter()
    cpu = time.process_time()
    search_seconds = 0.0
    for g in range(games):
        deal = seed + g
        env.reset(seed=deal)
        agents = {name: make_agent(specs[env.seat_of(name)], env.game, env.observer, rng)
                  for name in env.possible_agents}
        first = len(cols["step"])
        step = 0
        while not env.game_state.is_terminal():
            name = env.agent_selection
            seat = env.seat_of(name)
            seen = env.observe(name)
            action = int(choose_action(agents[name], env, name))
            found: tuple[list[int], list[float]] | None = None
            if annotator is not None and g < annotated_games and seen["action_mask"].sum() > 1:
                t0 = time.perf_counter()
                annotator.act_in(env.game_state, seat)
                search_seconds += time.perf_counter() - t0
                legal = sorted(annotator.last_values)
                if len(legal) != int(seen["action_mask"].sum()):
                    raise ValueError(f"the annotating search {search} valued {len(legal)} of "
                                     f"the {int(seen['action_mask'].sum())} legal moves of game "
                                     f"{g}, step {step}; it takes at most {SEARCH_WIDTH}")
                found = (legal, [annotator.last_values[a] for a in legal])
            cols["action_string"].append(env.public_action_string(action, None))
            env.step(action)
            obs_rows.append(seen["observation"])
            mask_rows.append(seen["action_mask"])
            cols["game_index"].append(g)
            cols["deal_seed"].append(deal)
            cols["step"].append(step)
            cols["seat"].append(seat)
            cols["policy"].append(specs[seat])
            cols["action"].append(action)
            cols["search_actions"].append(None if found is None else found[0])
            cols["search_values"].append(None if found is None else found[1])
            step += 1
        returns = [float(x) for x in env.game_state.returns()]
        cols["returns"].extend([returns] * (len(cols["step"]) - first))
        if progress:
            import sys

            print(f"game {g + 1}/{games}: {step} decisions, returns {returns}", file=sys.stderr,
                  flush=True)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    rows = len(cols["step"])
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "task": task,
        "game": game,
        "env_kwargs": kwargs,
        "num_players": n,
        "observation_size": int(env.observer.size),
        "num_actions": int(env.game.num_distinct_actions),
        "policies": specs,
        "first_deal_seed": seed,
        "games": games,
        "decisions": rows,
        "annotation": (None if annotate is None or search is None
                       else _annotation(annotate, search, annotated_games)),
        "provenance": provenance(),
    }
    sch = schema(meta["observation_size"], meta["num_actions"], n, meta)
    # The rows' vectors go into one matrix and the list goes at once: at 12,000 Positano games
    # each holds 4.6 GB, and the file is read back below with the writer's copies gone.
    observation = np.asarray(obs_rows, np.float32)
    obs_rows.clear()
    arrays = {
        "game_index": pa.array(cols["game_index"], pa.int32()),
        "game": pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int8)),
                                               pa.array([game])),
        "config": pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int8)),
                                                 pa.array([config_text])),
        "deal_seed": pa.array(cols["deal_seed"], pa.int64()),
        "step": pa.array(cols["step"], pa.int32()),
        "seat": pa.array(cols["seat"], pa.int8()),
        "policy": pa.array(cols["policy"], pa.string()).dictionary_encode().cast(
            sch.field("policy").type),
        "observation": _fixed(observation, pa.float32()),
        "action_mask": _fixed(np.asarray(mask_rows, np.int8), pa.int8()),
        "action": pa.array(cols["action"], pa.int32()),
        "action_string": pa.array(cols["action_string"], pa.string()),
        "returns": _fixed(np.asarray(cols["returns"], np.float32).reshape(rows, n), pa.float32()),
        "search_actions": pa.array(cols["search_actions"], pa.list_(pa.int16())),
        "search_values": pa.array(cols["search_values"], pa.list_(pa.float32())),
    }
    table = pa.Table.from_arrays([arrays[c] for c in COLUMNS], schema=sch)
    _save(folder, table, meta, _making(rows, seconds, cpu, search_seconds,
                                       _command(task, specs, games, seed, annotate,
                                                annotated_games)))
    del table, arrays, observation
    return GameDataset(folder)


def _making(rows: int, seconds: float, cpu: float, search_seconds: float,
            command: str) -> dict[str, Any]:
    """The manifest's ``making``: how long the rows took and the command that made them."""
    return {
        "seconds": round(seconds, 3),
        "decisions_per_second": round(rows / max(seconds, 1e-9), 1),
        # CPU time of the making process: on a shared machine the rate the code allows.
        "cpu_seconds": round(cpu, 3),
        "decisions_per_cpu_second": round(rows / max(cpu, 1e-9), 1),
        "search_seconds": round(search_seconds, 3),
        "command": command,
    }


def _save(folder: pathlib.Path, table: Any, meta: dict[str, Any],
          making: dict[str, Any]) -> None:
    """Write the rows and then the manifest that checksums them (the folder is created)."""
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    data = folder / DATA_NAME
    pq.write_table(table, data, compression="zstd", compression_level=9)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "files": [{"path": DATA_NAME, "bytes": data.stat().st_size, "sha256": sha256(data),
                   "rows": int(table.num_rows), "games": int(meta["games"])}],
        "metadata": meta,
        "making": making,
    }
    (folder / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


SEARCH_WIDTH = 64
"""The candidates of an annotating ``search:`` agent: the most it takes, more than any
decision of either game has legal moves (Rapa Nui has 45 actions, a Positano decision at most 42
legal ones), so every legal move is valued."""

VALUE_FORMULA = ("(1 - w) * win share + w * (0.5 + 0.5 * tanh(margin / scale)), w = 0.5, "
                 "scale = 10")
ABOVE_FORMULA = ("(1 - w) * share of the other seats finished above (a tie one half) + w * "
                 "mean over them of (0.5 + 0.5 * tanh(margin / scale)), w = 0.5, scale = 10")
"""The value of a ``search:`` annotator with ``value=above``."""


def annotation_search(annotate: int | str) -> str:
    """The spec of the search that annotates: ``ismcts:N:guided``, or a ``search:`` spec.

    Args:
        annotate: Simulations of the guided ISMCTS (at least 2), or a ``search:`` spec; its
            width is set to :data:`SEARCH_WIDTH`, so that every legal move is a candidate.

    Raises:
        ValueError: For anything else, naming what is allowed.
        tabletop_gym.extras.MissingExtraError: A ``search:`` spec without the ``jax`` extra.
    """
    if isinstance(annotate, int) and not isinstance(annotate, bool):
        if annotate < 2:
            raise ValueError(f"annotate is the search's simulations per decision (at least 2) "
                             f"or a search: spec, got {annotate!r}")
        return f"ismcts:{annotate}:guided"
    from tabletop_gym.agents.kinds import is_kind

    if isinstance(annotate, str) and is_kind(annotate, "search"):
        from tabletop_gym.extras import require

        require("jax", f"annotating with {annotate!r}")
        from tabletop_gym.jax.search import BEST, parse_spec

        parsed = parse_spec(annotate)
        if parsed.policy == BEST:
            # A dataset's metadata names the settings that valued its moves, for any table.
            raise ValueError(f"annotate names the search's settings; {annotate!r} stands for "
                             "different ones at each table size: write them out "
                             "('search:heuristic-net-v3?worlds=28')")
        return dataclasses.replace(parsed, width=SEARCH_WIDTH).name
    raise ValueError(f"annotate is the guided ISMCTS's simulations per decision (an integer, at "
                     f"least 2) or a batched search's spec ('search:jax-ppo?worlds=16'), got "
                     f"{annotate!r}")


def _annotation(annotate: int | str, search: str, annotated_games: int) -> dict[str, Any]:
    """The metadata's ``annotation``: which search valued the moves, and what a value is.

    ``search`` is ``annotation_search(annotate)``, already checked by the caller.
    """
    if isinstance(annotate, int):
        return {"search": search, "simulations": annotate, "candidates": "every legal action",
                "annotated_games": annotated_games,
                "value": "mean over the rounds of the searching seat's value of a finished "
                         f"game, in [0, 1]: {VALUE_FORMULA} (tabletop_gym.agents.ismcts)"}
    from tabletop_gym.jax.search import parse_spec

    spec = parse_spec(search)
    formula = ABOVE_FORMULA if spec.value == "above" else VALUE_FORMULA
    return {"search": search, "worlds": spec.worlds,
            "candidates": "every legal action", "annotated_games": annotated_games,
            "value": "mean over the worlds drawn from the seat's information of its value of "
                     "the game played out from the move by the policy's greedy moves, in "
                     f"[0, 1]: {formula} (tabletop_gym.jax.search)"}


def annotation_label(annotation: dict[str, Any]) -> str:
    """How a dataset's annotation is named in tables: ``8 simulations`` or the search's spec."""
    if "simulations" in annotation:
        return f"{annotation['simulations']} simulations"
    return f"`{annotation['search']}`"


def _command(task: str, specs: list[str], games: int, seed: int, annotate: int | str | None,
             annotated: int) -> str:
    policy = specs[0] if len(set(specs)) == 1 else ",".join(specs)
    out = (f"tabletop-gym dataset make --format parquet --task {task} --policy {policy} "
           f"--episodes {games} --seed {seed}")
    if annotate is not None:
        out += f" --annotate {shlex.quote(str(annotate))} --annotated-games {annotated}"
    return out


def _fixed(matrix: np.ndarray, kind: Any) -> Any:
    pa = _pa()
    return pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1), kind),
                                             int(matrix.shape[1]))


# --- merging -------------------------------------------------------------------------------------

_SAME = ("format_version", "task", "game", "env_kwargs", "num_players", "observation_size",
         "num_actions", "policies")
"""Metadata every part of a merge shares: the same games of the same players, so that the
merged file is one dataset."""


def merge_games(parts: Sequence[str | pathlib.Path], out: str | pathlib.Path) -> GameDataset:
    """Join games datasets made in parts over consecutive deals into one dataset in ``out``.

    A large dataset can be made by several ``dataset make`` commands at once, one per core or
    machine, each from the deal after the previous part's last (``--seed 0 --episodes 1000``,
    ``--seed 1000 --episodes 1000``, ...), and joined here. Every part is read with the reader's
    checks first, and nothing is written unless all of them agree: the same task, env keywords,
    sizes and seat policies; deals that follow on (each part's first deal seed is the previous
    part's first plus its games); and annotated games that stay the first ones (a part after
    the first may be annotated only if every earlier part is annotated whole, by the same
    search). The rows are copied unchanged, with ``game_index`` renumbered to run on.

    Each part's agents draw from a generator seeded with its own first deal, so the merged games
    are not the ones one ``make`` of all of them would play; each part stays reproducible by its
    own command. The metadata's ``parts`` lists them (folder name, first deal, games, decisions,
    annotated games, SHA-256, command and provenance); ``provenance`` is the merging code's. The
    manifest's ``making`` sums the parts' seconds and names the merge.

    Args:
        parts: Two or more games dataset folders, in the order of their deals.
        out: The folder to write (created; an existing dataset in it is refused).

    Returns:
        The merged dataset.

    Raises:
        DatasetError: A part the reader refuses (naming the file).
        ValueError: Fewer than two parts, an existing dataset in ``out``, or parts that do not
            join (naming the part and what differs), before anything is written.
    """
    pa = _pa()

    from tabletop_gym.provenance import metadata as provenance

    if isinstance(parts, (str, pathlib.Path)) or len(parts) < 2:
        raise ValueError(f"merge joins two or more games datasets, got {parts!r}")
    folder = pathlib.Path(out)
    if (folder / MANIFEST_NAME).exists() or (folder / DATA_NAME).exists():
        raise ValueError(f"{folder} already holds a games dataset; choose another folder")
    sets = [GameDataset(p) for p in parts]
    first = sets[0].metadata
    annotation: dict[str, Any] | None = None
    annotated = 0
    prefix = True  # every game so far is annotated, so the next part's may be too
    deal = int(first["first_deal_seed"])
    for ds in sets:
        meta = ds.metadata
        differ = [k for k in _SAME if meta[k] != first[k]]
        if differ:
            raise ValueError(f"{ds.folder} is not a part of the same dataset as {sets[0].folder}: "
                             f"its {', '.join(differ)} differ; a merge joins games of one task "
                             "played by the same seat policies")
        if int(meta["first_deal_seed"]) != deal:
            raise ValueError(f"{ds.folder} deals from seed {meta['first_deal_seed']}; after the "
                             f"parts before it the next deal is {deal} (give the parts in the "
                             "order of their deals, with none missing or repeated)")
        deal += ds.num_games
        own = meta["annotation"]
        count = ds.annotated_games
        if count:
            if not prefix:
                raise ValueError(f"{ds.folder} has annotated games after games without "
                                 "annotations; the merged annotated games must be the first "
                                 "ones")
            if annotation is not None and _search_of(annotation) != _search_of(own):
                raise ValueError(f"{ds.folder} is annotated by {own['search']!r}, an earlier "
                                 f"part by {annotation['search']!r}: one dataset's annotations "
                                 "come from one search")
            annotation = annotation or own
            annotated += count
        prefix = prefix and count == ds.num_games
    tables = []
    offset = 0
    for ds in sets:
        index = pa.array(ds.table.column("game_index").to_numpy() + offset, pa.int32())
        tables.append(ds.table.set_column(0, ds.table.schema.field(0), index)
                      .replace_schema_metadata(None))
        offset += ds.num_games
    rows = sum(len(ds) for ds in sets)
    meta = {
        **first,
        "games": offset,
        "decisions": rows,
        "annotation": None if annotation is None else {**annotation,
                                                       "annotated_games": annotated},
        "parts": [_part(ds) for ds in sets],
        "provenance": provenance(),
    }
    sch = schema(int(first["observation_size"]), int(first["num_actions"]),
                 int(first["num_players"]), meta)
    table = pa.concat_tables(tables).cast(sch)
    made = [ds.manifest["making"] for ds in sets]
    making = _making(rows, sum(float(m["seconds"]) for m in made),
                     sum(float(m["cpu_seconds"]) for m in made),
                     sum(float(m["search_seconds"]) for m in made),
                     "tabletop-gym dataset merge " + " ".join(shlex.quote(ds.folder.name)
                                                              for ds in sets)
                     + f" --out {shlex.quote(folder.name)}")
    _save(folder, table, meta, {**making, "parts": made})
    del table, tables
    return GameDataset(folder)


def _search_of(annotation: dict[str, Any]) -> dict[str, Any]:
    """An annotation's settings, apart from how many games it covers."""
    return {k: v for k, v in annotation.items() if k != "annotated_games"}


def _part(ds: GameDataset) -> dict[str, Any]:
    """A merged part as the metadata's ``parts`` lists it (a merged part lists its own)."""
    meta = ds.metadata
    return {"name": ds.folder.name, "first_deal_seed": int(meta["first_deal_seed"]),
            "games": ds.num_games,
            "decisions": len(ds),
            "annotated_games": ds.annotated_games,
            "sha256": ds.manifest["files"][0]["sha256"],
            "command": ds.manifest["making"]["command"], "provenance": meta["provenance"],
            **({"parts": meta["parts"]} if "parts" in meta else {})}


# --- reading -------------------------------------------------------------------------------------


@dataclasses.dataclass
class GameRows:
    """The decisions of one game, as numpy arrays (one entry per decision).

    Attributes:
        index: The game's index in the file.
        deal_seed: ``env.reset(seed=deal_seed)`` deals it.
        returns: Every seat's final return, by seat.
        seats: The seat that acted.
        observations: What it saw (``(decisions, observation_size)``).
        masks: Its legal actions (``(decisions, num_actions)``).
        actions: What it chose.
        action_strings: Their public strings.
        search: Per decision, ``{action: value}`` of the guided search, or ``None``.
    """

    index: int
    deal_seed: int
    returns: np.ndarray
    seats: np.ndarray
    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    action_strings: list[str]
    search: list[dict[int, float] | None]


class GameDataset:
    """A games dataset, checked against its manifest and schema when opened.

    Args:
        path: The dataset folder, its ``manifest.json`` or its ``games.parquet``.

    Raises:
        DatasetError: Naming the file and what is wrong with it (missing, truncated, changed
            since it was written, not Parquet, another format, a newer version, rows that break
            the schema).
    """

    def __init__(self, path: str | pathlib.Path):
        p = pathlib.Path(path)
        folder = p if p.is_dir() else p.parent
        manifest_path = folder / MANIFEST_NAME
        self.folder = folder
        self.manifest = _read_manifest(manifest_path, given=p)
        entry = self.manifest["files"][0]
        self.path = folder / entry["path"]
        _check_bytes(self.path, entry)
        self.table = _read_table(self.path)
        self.metadata: dict[str, Any] = _check_schema(self.path, self.table,
                                                      self.manifest["metadata"])
        _check_rows(self.path, self.table, self.metadata, entry)
        self._arrays: dict[str, np.ndarray] | None = None

    @property
    def num_games(self) -> int:
        """Games in the file."""
        return int(self.metadata["games"])

    @property
    def annotated_games(self) -> int:
        """Games, from the first, whose decisions the search valued (0 without annotations)."""
        own = self.metadata["annotation"]
        return 0 if own is None else int(own["annotated_games"])

    @property
    def annotated_decisions(self) -> int:
        """Decisions with the search's values (counted without building :meth:`arrays`)."""
        return len(self) - int(self.table.column("search_actions").null_count)

    def __len__(self) -> int:
        """Decisions (rows) in the file."""
        return int(self.table.num_rows)

    def arrays(self) -> dict[str, np.ndarray]:
        """Every numeric column as one numpy array (built once; rows in file order).

        ``observation`` ``(N, size)`` float32, ``action_mask`` ``(N, actions)`` int8,
        ``returns`` ``(N, players)`` float32, and ``game_index``, ``deal_seed``, ``step``,
        ``seat``, ``action`` ``(N,)``; ``search_values`` ``(N, actions)`` float32 holds each
        annotated row's values (NaN where a row has none), ``annotated`` ``(N,)`` bool says which.
        """
        if self._arrays is None:
            t = self.table
            out = {c: t.column(c).to_numpy() for c in
                   ("game_index", "deal_seed", "step", "seat", "action")}
            for c in ("observation", "action_mask", "returns"):
                col = t.column(c).combine_chunks()
                out[c] = col.flatten().to_numpy().reshape(len(col), col.type.list_size)
            out["observation"] = out["observation"].astype(np.float32, copy=False)
            values = np.full((len(self), int(self.metadata["num_actions"])), np.nan, np.float32)
            acts = t.column("search_actions").to_pylist()
            vals = t.column("search_values").to_pylist()
            annotated = np.zeros(len(self), bool)
            for i, (a, v) in enumerate(zip(acts, vals, strict=True)):
                if a is not None:
                    values[i, a] = v
                    annotated[i] = True
            out["search_values"] = values
            out["annotated"] = annotated
            self._arrays = out
        return self._arrays

    def games(self) -> Iterator[GameRows]:
        """Each game's decisions, in file order."""
        arr = self.arrays()
        strings = self.table.column("action_string").to_pylist()
        bounds = np.flatnonzero(np.diff(arr["game_index"])) + 1
        for lo, hi in zip([0, *bounds.tolist()], [*bounds.tolist(), len(self)], strict=True):
            search: list[dict[int, float] | None] = []
            for i in range(lo, hi):
                if arr["annotated"][i]:
                    legal = np.flatnonzero(~np.isnan(arr["search_values"][i]))
                    search.append({int(a): float(arr["search_values"][i, a]) for a in legal})
                else:
                    search.append(None)
            yield GameRows(
                index=int(arr["game_index"][lo]), deal_seed=int(arr["deal_seed"][lo]),
                returns=arr["returns"][lo], seats=arr["seat"][lo:hi],
                observations=arr["observation"][lo:hi], masks=arr["action_mask"][lo:hi],
                actions=arr["action"][lo:hi], action_strings=strings[lo:hi], search=search)

    def decisions(self) -> Iterator[dict[str, Any]]:
        """Each row as a dict of the columns (numpy arrays for the vectors)."""
        arr = self.arrays()
        strings = self.table.column("action_string").to_pylist()
        for i in range(len(self)):
            yield {"game_index": int(arr["game_index"][i]), "deal_seed": int(arr["deal_seed"][i]),
                   "step": int(arr["step"][i]), "seat": int(arr["seat"][i]),
                   "observation": arr["observation"][i], "action_mask": arr["action_mask"][i],
                   "action": int(arr["action"][i]), "action_string": strings[i],
                   "returns": arr["returns"][i],
                   "search_values": arr["search_values"][i] if arr["annotated"][i] else None}

    def sample(self, batch_size: int, seed: int | np.random.Generator | None = None,
               annotated: bool = False) -> dict[str, np.ndarray]:
        """A batch of rows drawn uniformly with replacement, as numpy arrays.

        Args:
            batch_size: Rows in the batch.
            seed: Seed or generator of the draw.
            annotated: Draw from the annotated rows only.

        Raises:
            ValueError: On a batch size below 1, or ``annotated`` on a file without annotations.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        arr = self.arrays()
        pool = np.flatnonzero(arr["annotated"]) if annotated else np.arange(len(self))
        if pool.size == 0:
            raise ValueError(f"{self.path} has no annotated decisions")
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        rows = pool[rng.integers(0, pool.size, batch_size)]
        return {k: v[rows] for k, v in arr.items()}


def _fail(path: pathlib.Path, what: str) -> DatasetError:
    return DatasetError(f"{path}: {what}")


def _read_manifest(path: pathlib.Path, given: pathlib.Path) -> dict[str, Any]:
    if not given.exists():
        raise _fail(given, "no such file or folder")
    if not path.is_file():
        raise _fail(given, f"no {MANIFEST_NAME} beside it; a games dataset is a folder with "
                    f"{MANIFEST_NAME} and {DATA_NAME} (written by write_games or "
                    "`tabletop-gym dataset make --format parquet`)")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise _fail(path, f"not a games manifest (not JSON: {err})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise _fail(path, f"not a games manifest: its format is {found!r}, expected {FORMAT!r}")
    version = doc.get("format_version")
    if not isinstance(version, int) or not 1 <= version <= FORMAT_VERSION:
        raise _fail(path, f"format version {version!r}; this tabletop-gym reads versions 1 to "
                    f"{FORMAT_VERSION} (a newer one needs a newer tabletop-gym)")
    files = doc.get("files")
    ok = (isinstance(files, list) and len(files) == 1 and isinstance(files[0], dict)
          and isinstance(files[0].get("path"), str) and "/" not in files[0]["path"]
          and isinstance(files[0].get("bytes"), int) and isinstance(files[0].get("sha256"), str)
          and isinstance(files[0].get("rows"), int) and isinstance(doc.get("metadata"), dict))
    if not ok:
        raise _fail(path, "malformed manifest: it needs one entry in 'files' (path in this "
                    "folder, bytes, sha256, rows) and a 'metadata' object")
    return doc


def _check_bytes(path: pathlib.Path, entry: dict[str, Any]) -> None:
    if not path.is_file():
        raise _fail(path, f"missing: {MANIFEST_NAME} lists it")
    size = path.stat().st_size
    if size != entry["bytes"]:
        raise _fail(path, f"is {size} bytes, the manifest says {entry['bytes']}: truncated or "
                    "replaced since it was written")
    if sha256(path) != entry["sha256"]:
        raise _fail(path, "SHA-256 differs from the manifest's: the file was changed after it "
                    "was written")


def _read_table(path: pathlib.Path) -> Any:
    pa = _pa()
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path)
    except (pa.ArrowException, OSError) as err:
        raise _fail(path, f"not a readable Parquet file ({err})") from None


def _check_schema(path: pathlib.Path, table: Any, listed: dict[str, Any]) -> dict[str, Any]:
    raw = (table.schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise _fail(path, f"a Parquet file without tabletop-gym games metadata (schema key "
                    f"{META_KEY.decode()!r}): not a {FORMAT} file")
    try:
        meta = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise _fail(path, "its tabletop-gym metadata is not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise _fail(path, f"its metadata names format {meta.get('format')!r}, not {FORMAT!r}")
    if meta != listed:
        raise _fail(path, f"its metadata differs from {MANIFEST_NAME}'s: the two were not "
                    "written together")
    try:
        want = schema(int(meta["observation_size"]), int(meta["num_actions"]),
                      int(meta["num_players"]))
    except (KeyError, TypeError, ValueError):
        raise _fail(path, "its metadata lacks the sizes (observation_size, num_actions, "
                    "num_players)") from None
    have = {f.name: f.type for f in table.schema}
    wrong = [f"{f.name}: {have.get(f.name, 'missing')} (expected {f.type})"
             for f in want if f.name not in have or not _same_type(have[f.name], f.type)]
    extra = sorted(set(have) - {f.name for f in want})
    if wrong or extra or table.schema.names != want.names:
        order = [] if wrong or extra else ["columns out of order"]
        raise _fail(path, "columns do not match format version 1: "
                    + "; ".join(wrong + [f"unexpected column {c}" for c in extra] + order))
    return meta


def _same_type(have: Any, want: Any) -> bool:
    """Equal Arrow types, whatever a list's item field is named (Parquet renames it)."""
    pa = _pa()
    if pa.types.is_fixed_size_list(want):
        return bool(pa.types.is_fixed_size_list(have) and have.list_size == want.list_size
                    and have.value_type.equals(want.value_type))
    if pa.types.is_list(want):
        return bool(pa.types.is_list(have) and have.value_type.equals(want.value_type))
    return bool(have.equals(want))


def _check_rows(path: pathlib.Path, table: Any, meta: dict[str, Any],
                entry: dict[str, Any]) -> None:
    rows = table.num_rows
    if rows != entry["rows"] or rows != meta.get("decisions"):
        raise _fail(path, f"{rows} rows, the manifest says {entry['rows']}")
    for name in COLUMNS[:12]:
        if table.column(name).null_count:
            raise _fail(path, f"column {name} has empty values")
    games = table.column("game_index").to_numpy()
    steps = table.column("step").to_numpy()
    n_games = int(meta["games"])
    starts = np.r_[True, games[1:] != games[:-1]] if rows else np.zeros(0, bool)
    if (rows and (games[0] != 0 or np.any(np.diff(games) < 0) or np.any(np.diff(games) > 1)
                  or games[-1] != n_games - 1)):
        raise _fail(path, f"game_index must run 0..{n_games - 1} in order")
    expect = np.arange(rows) - np.maximum.accumulate(np.where(starts, np.arange(rows), 0))
    if not np.array_equal(steps, expect):
        bad = int(np.flatnonzero(steps != expect)[0])
        raise _fail(path, f"row {bad}: step {int(steps[bad])}, expected {int(expect[bad])} "
                    "(each game's decisions are numbered 0, 1, ... in order)")
    seats = table.column("seat").to_numpy()
    actions = table.column("action").to_numpy()
    if rows and (seats.min() < 0 or seats.max() >= int(meta["num_players"])
                 or actions.min() < 0 or actions.max() >= int(meta["num_actions"])):
        raise _fail(path, "a seat or an action outside the game's range")


# --- replay --------------------------------------------------------------------------------------


def check_replay(dataset: GameDataset) -> int:
    """Replay every game through the env and compare each row with what the env shows.

    Each game is dealt by ``env.reset(seed=deal_seed)`` on the env of the metadata's keywords;
    at each row the env's agent to act must be the row's seat, and its ``observe`` must equal
    the row's observation and mask exactly, its public string the row's; after the last row the
    game must be over with the rows' returns.

    Returns:
        The number of decisions checked.

    Raises:
        DatasetError: At the first row that differs (naming the file, game, step and column).
    """
    from tabletop_gym.arena.envs import raw_env_factory

    meta = dataset.metadata
    env = raw_env_factory(meta["game"])(**meta["env_kwargs"])
    checked = 0
    for game in dataset.games():
        env.reset(seed=game.deal_seed)

        def wrong(step: int, what: str, g: GameRows = game) -> DatasetError:
            return _fail(dataset.path, f"game {g.index} (deal seed {g.deal_seed}), step {step}: "
                         f"{what}")

        for i in range(len(game.actions)):
            if env.game_state.is_terminal():
                raise wrong(i, "the game is already over in the env")
            name = env.agent_selection
            if env.seat_of(name) != int(game.seats[i]):
                raise wrong(i, f"seat {int(game.seats[i])} acted, the env's seat to act is "
                            f"{env.seat_of(name)}")
            seen = env.observe(name)
            if not np.array_equal(seen["observation"], game.observations[i]):
                diff = np.flatnonzero(seen["observation"] != game.observations[i])
                raise wrong(i, f"observation differs from the env's at {diff.size} entries "
                            f"(first: index {int(diff[0])})")
            if not np.array_equal(seen["action_mask"], game.masks[i]):
                raise wrong(i, "action_mask differs from the env's")
            action = int(game.actions[i])
            if env.public_action_string(action, None) != game.action_strings[i]:
                raise wrong(i, "action_string differs from the env's public string")
            env.step(action)
            checked += 1
        if not env.game_state.is_terminal():
            raise wrong(len(game.actions), "the rows end before the game does")
        if not np.allclose(np.asarray(env.game_state.returns(), np.float32), game.returns):
            raise wrong(len(game.actions), f"returns {game.returns.tolist()}, the env's are "
                        f"{list(env.game_state.returns())}")
    return checked
