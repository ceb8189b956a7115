"""A policy trained by ``tabletop_gym.jax.train`` played with numpy alone: the spec ``jax:<path>``.

A checkpoint is one ``.npz`` file: the actor's and the critic's float32 arrays by name
(``actor/hidden_0/kernel``, ``actor/hidden_0/bias``, ..., ``actor/out/kernel``, ``critic/...``) and
an entry ``metadata``, the UTF-8 bytes of a JSON object (``format`` :data:`FORMAT`, ``version``
:data:`VERSION`, ``game``, ``config``, ``observation_size``, ``num_actions``, ``hidden``,
``activation``, ``train`` settings, ``seed``, ``learner_steps``, ``provenance``; ``critic``:
``false`` for a policy with no value network, such as a behaviour clone). Loading never
unpickles anything, and checks the whole file before anything plays: only the entries the format
names are read, each only once its ``.npy`` header says float32 and the shape that the metadata
and the game give (the actor takes the game's observation and gives one logit per action id),
so a damaged or foreign file is a ``ValueError`` naming what is wrong, never a huge read or a
policy that plays nonsense.

The agent reads the reference observer's vector, which is the batched engine's ``observe`` bit for
bit, so JAX is not needed at play time; it plays the greedy masked argmax of the actor's logits.
"""

from __future__ import annotations

import functools
import json
import math
import pathlib
import zipfile
import zlib
from collections.abc import Callable
from typing import IO, Any

import numpy as np

FORMAT = "tabletop-gym-jax-policy"
"""The ``format`` of a checkpoint's metadata."""
VERSION = 1
"""The version of the format this module reads and writes."""
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
"""The hidden-layer activations a checkpoint may name."""
MAX_NUMBERS = 2**26
"""The most float32 numbers (256 MiB) a checkpoint's arrays may hold in all."""
MAX_METADATA_BYTES = 2**20
"""The longest ``metadata`` entry, in bytes."""


def array_shapes(meta: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """Every array a checkpoint with (checked) metadata ``meta`` holds, by name, with its shape.

    The actor maps ``observation_size`` inputs through the ``hidden`` layers to ``num_actions``
    logits; the critic (unless the metadata says ``"critic": false``) through layers of the same
    widths to one value.
    """
    shapes: dict[str, tuple[int, ...]] = {}
    nets = [("actor", int(meta["num_actions"]))] + ([("critic", 1)]
                                                    if meta.get("critic", True) else [])
    for net, width in nets:
        sizes = [int(meta["observation_size"]), *(int(h) for h in meta["hidden"])]
        for i in range(len(sizes) - 1):
            shapes[f"{net}/hidden_{i}/kernel"] = (sizes[i], sizes[i + 1])
            shapes[f"{net}/hidden_{i}/bias"] = (sizes[i + 1],)
        shapes[f"{net}/out/kernel"] = (sizes[-1], width)
        shapes[f"{net}/out/bias"] = (width,)
    return shapes


@functools.lru_cache(maxsize=32)
def _game_sizes(game: str, config: str) -> tuple[int, int, int]:
    """``(num_players, observation size, number of actions)`` of ``game`` in ``config`` (JSON).

    The observation is the reference observer's vector, which the batched engine's ``observe``
    matches bit for bit.
    """
    from tabletop_gym.core.records import make_game
    from tabletop_gym.registry import game_spec

    g = make_game(game, json.loads(config))
    observer = game_spec(game).envs().raw_env.observer_class(g)
    return int(g.num_players), int(observer.size), int(g.num_distinct_actions)


def _is_count(value: Any) -> bool:
    return type(value) is int and value > 0


def check_metadata(meta: Any, where: str) -> dict[str, Any]:
    """``meta`` if it describes a checkpoint this module can play, else a ``ValueError``.

    Checked: the format and version; ``game`` a known game and ``config`` one of its
    configurations; ``num_players``, ``observation_size`` and ``num_actions`` those of that game
    (the network's input and output widths); ``hidden`` a list of positive integers;
    ``activation`` one of :data:`ACTIVATIONS`; ``critic``, when given, a boolean; at most
    :data:`MAX_NUMBERS` numbers in all.

    Args:
        meta: The decoded ``metadata`` entry.
        where: What to call the checkpoint in messages (its path).
    """
    from tabletop_gym.core.game import shown
    from tabletop_gym.registry import game_names

    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{where} has no {FORMAT!r} metadata entry")
    if meta.get("version") != VERSION:
        raise ValueError(f"{where} is {FORMAT} version {shown(meta.get('version'))}; this "
                         f"package reads version {VERSION}")
    game, config = meta.get("game"), meta.get("config")
    if not isinstance(game, str) or game not in game_names():
        raise ValueError(f"{where} metadata 'game' {shown(game)} is not a known game; known: "
                         f"{sorted(game_names())}")
    if not isinstance(config, dict):
        raise ValueError(f"{where} metadata 'config' must be an object, got {shown(config)}")
    try:
        players, obs_size, actions = _game_sizes(game, json.dumps(config, sort_keys=True))
    except ValueError as exc:
        raise ValueError(f"{where} metadata 'config' is not a {game} configuration: "
                         f"{exc}") from None
    for key, want in (("num_players", players), ("observation_size", obs_size),
                      ("num_actions", actions)):
        if type(meta.get(key)) is not int or meta[key] != want:
            raise ValueError(f"{where} metadata {key!r} is {shown(meta.get(key))}; {game} with "
                             f"config {config} has {want}")
    hidden = meta.get("hidden")
    if not isinstance(hidden, list) or not all(_is_count(h) for h in hidden):
        raise ValueError(f"{where} metadata 'hidden' must be a list of layer widths (positive "
                         f"integers), got {shown(hidden)}")
    activation = meta.get("activation")
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise ValueError(f"{where} metadata 'activation' is {shown(activation)}; known: "
                         f"{sorted(ACTIVATIONS)}")
    if type(meta.get("critic", True)) is not bool:
        raise ValueError(f"{where} metadata 'critic' must be true or false (whether the file "
                         f"holds a value network), got {shown(meta.get('critic'))}")
    numbers = sum(math.prod(shape) for shape in array_shapes(meta).values())
    if numbers > MAX_NUMBERS:
        raise ValueError(f"{where} metadata describes {numbers} numbers; a checkpoint holds at "
                         f"most {MAX_NUMBERS}")
    return meta


def check_arrays(arrays: dict[str, np.ndarray], meta: dict[str, Any], where: str) -> None:
    """Refuse ``arrays`` unless they are exactly the float32, finite arrays ``meta`` describes.

    Raises:
        ValueError: Naming the first array that is missing, extra, of another dtype or shape,
            or not finite.
    """
    shapes = array_shapes(meta)
    missing = [k for k in shapes if k not in arrays]
    extra = sorted(k for k in arrays if k not in shapes)
    if missing or extra:
        raise ValueError(f"{where} must hold the arrays {sorted(shapes)}; missing {missing}, "
                         f"unexpected {extra}")
    for name, shape in shapes.items():
        _check_array(name, arrays[name].dtype, arrays[name].shape, shape, where)
        if not np.isfinite(arrays[name]).all():
            raise ValueError(f"{where} array {name!r} holds values that are not finite")


def _check_array(name: str, dtype: np.dtype, shape: tuple[int, ...],
                 want: tuple[int, ...], where: str) -> None:
    if dtype.kind != "f" or dtype.itemsize != 4:
        raise ValueError(f"{where} array {name!r} is of dtype {dtype}; the format stores float32")
    if tuple(shape) != want:
        raise ValueError(f"{where} array {name!r} has shape {tuple(shape)}; its metadata "
                         f"(observation_size, hidden, num_actions) gives {want}")


def save_policy(path: str | pathlib.Path, arrays: dict[str, np.ndarray],
                metadata: dict[str, Any]) -> pathlib.Path:
    """Write a checkpoint: ``arrays`` (float32) and ``metadata`` (format and version added).

    Raises:
        ValueError: If a name is ``metadata``, or the metadata or the arrays are not those
            :func:`load_policy` accepts (nothing is written then).
    """
    if "metadata" in arrays:
        raise ValueError("'metadata' is the checkpoint's own entry, not an array name")
    meta = {"format": FORMAT, "version": VERSION, **metadata}
    entries: dict[str, Any] = {k: np.asarray(v, np.float32) for k, v in arrays.items()}
    check_arrays(entries, check_metadata(meta, "the policy to save"), "the policy to save")
    blob = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
    out = pathlib.Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as fh:
        np.savez(fh, metadata=blob, **entries)
    return out


def load_policy(path: str | pathlib.Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays (read-only) and metadata of a checkpoint, every one checked.

    Only the entries the format names are read, each after its header: an array of another
    dtype or shape than the metadata and the game give is refused before its data is read.

    Raises:
        ValueError: If the file is missing or empty, not a zip archive of ``.npy`` entries (or
            a damaged one), of another format or version, or its metadata or arrays are not
            those :func:`check_metadata` and :func:`check_arrays` accept.
    """
    p = pathlib.Path(path)
    if not p.is_file():
        raise ValueError(f"jax policy checkpoint {str(p)!r} not found")
    # An evaluation builds its agents anew for every game: read a file once per version of it.
    arrays, meta = _read(str(p.resolve()), p.stat().st_mtime_ns)
    return dict(arrays), dict(meta)


@functools.lru_cache(maxsize=16)
def _read(path: str, mtime_ns: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    where = repr(path)
    if pathlib.Path(path).stat().st_size == 0:
        raise ValueError(f"{where} is empty, not a .npz jax policy checkpoint")
    try:
        with zipfile.ZipFile(path) as zf:
            blob = _read_entry(zf, "metadata", None, where)
            try:
                meta = json.loads(blob.tobytes().decode())
            except (UnicodeDecodeError, RecursionError, ValueError):
                meta = None
            check_metadata(meta, where)
            arrays = {name: _read_entry(zf, name, shape, where)
                      for name, shape in array_shapes(meta).items()}
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError,
            RuntimeError) as exc:
        # RuntimeError: an encrypted entry; NotImplementedError: an unknown compression.
        raise ValueError(f"{where} is not a .npz jax policy checkpoint (a zip archive of .npy "
                         f"entries) or is damaged: {exc}") from None
    check_arrays(arrays, meta, where)
    for a in arrays.values():
        a.flags.writeable = False
    return arrays, meta


def _read_entry(zf: zipfile.ZipFile, name: str, shape: tuple[int, ...] | None,
                where: str) -> np.ndarray:
    """The array ``name`` of the archive, its header checked before its data is read.

    ``shape`` None: the ``metadata`` entry (bytes, at most :data:`MAX_METADATA_BYTES`).
    """
    try:
        info = zf.getinfo(f"{name}.npy")
    except KeyError:
        raise ValueError(f"{where} lacks the entry {name!r}") from None
    with zf.open(info) as fh:
        try:
            dtype, declared, fortran = _read_header(fh)
        except (ValueError, SyntaxError, TypeError) as exc:
            raise ValueError(f"{where} entry {name!r} is not a .npy array: {exc}") from None
        if shape is None:
            if dtype != np.uint8 or len(declared) != 1 or declared[0] > MAX_METADATA_BYTES:
                raise ValueError(f"{where} entry 'metadata' must be at most "
                                 f"{MAX_METADATA_BYTES} bytes of JSON (uint8), is {dtype} of "
                                 f"shape {declared}")
        else:
            _check_array(name, dtype, declared, shape, where)
        size = math.prod(declared) * dtype.itemsize
        if info.file_size != fh.tell() + size:
            raise ValueError(f"{where} entry {name!r} declares {size} bytes of data but holds "
                             f"{info.file_size - fh.tell()}")
        data = fh.read(size)
        if len(data) != size or fh.read(1):
            raise ValueError(f"{where} entry {name!r} is cut short")
    array = np.frombuffer(data, dtype).reshape(declared, order="F" if fortran else "C")
    return array.astype(np.float32 if shape is not None else np.uint8)


def _read_header(fh: IO[bytes]) -> tuple[np.dtype, tuple[int, ...], bool]:
    """``(dtype, shape, fortran_order)`` of the ``.npy`` stream ``fh``, left at its data."""
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
    else:
        raise ValueError(f".npy format version {version} (this reader takes 1.0 and 2.0)")
    if dtype.hasobject:
        raise ValueError(f"dtype {dtype} holds Python objects")
    return dtype, tuple(int(x) for x in shape), bool(fortran)


class JaxPolicyAgent:
    """Plays a checkpoint of ``tabletop_gym.jax.train`` greedily with its action mask (numpy).

    Args:
        path: The ``.npz`` checkpoint.
        game_name: If given, the game the agent is to play (refused if it was trained on another).
        num_players: If given, the table size (refused if it differs).
        observation_size: If given, the observer's vector length (refused if it differs).
    """

    def __init__(self, path: str | pathlib.Path, game_name: str | None = None,
                 num_players: int | None = None, observation_size: int | None = None):
        arrays, meta = load_policy(path)
        self.metadata = meta
        self.name = f"jax:{path}"
        want = {"game": game_name, "num_players": num_players,
                "observation_size": observation_size}
        for key, value in want.items():
            if value is not None and meta.get(key) != value:
                raise ValueError(f"{str(path)!r} was trained for {key} {meta.get(key)!r}, "
                                 f"not {value!r}")
        # load_policy checked the activation and every array's shape against the game.
        self._act = ACTIVATIONS[meta["activation"]]
        self.layers = [(arrays[f"actor/hidden_{i}/kernel"], arrays[f"actor/hidden_{i}/bias"])
                       for i in range(len(meta["hidden"]))]
        self.out = (arrays["actor/out/kernel"], arrays["actor/out/bias"])
        self.num_actions = int(meta["num_actions"])
        # The batched engine's observation is the reference observer's vector; an env that
        # flattens simultaneous bids (Positano's turn-based observer) appends its commitment
        # slices after it, which the network never saw: it reads the first entries only.
        self.input_size = int(meta["observation_size"])

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The actor's logits (before masking) for one observation vector or rows of them."""
        x = np.asarray(observation, np.float32)[..., : self.input_size]
        for kernel, bias in self.layers:
            x = self._act(x @ kernel + bias)
        kernel, bias = self.out
        return np.asarray(x @ kernel + bias, np.float32)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """The legal action of the largest logit (the lowest id among equal ones)."""
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if not mask.any():
            raise ValueError("no legal action in the mask; this agent is not to act")
        logits = self.logits(observation["observation"])
        return int(np.argmax(np.where(mask, logits, -np.inf)))


__all__ = ["FORMAT", "MAX_NUMBERS", "VERSION", "JaxPolicyAgent", "array_shapes", "check_arrays",
           "check_metadata", "load_policy", "save_policy"]
