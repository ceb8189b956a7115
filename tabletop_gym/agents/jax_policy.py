"""A policy trained by ``tabletop_gym.jax.train`` played with numpy alone: the spec ``jax:<path>``.

A checkpoint is one ``.npz`` file: the actor's and the critic's float32 arrays by name
(``actor/hidden_0/kernel``, ``actor/hidden_0/bias``, ..., ``actor/out/kernel``, ``critic/...``) and
an entry ``metadata``, the UTF-8 bytes of a JSON object (``format`` :data:`FORMAT`, ``version``
:data:`VERSION`, ``game``, ``config``, ``observation_size``, ``num_actions``, ``hidden``,
``activation``, ``train`` settings, ``seed``, ``learner_steps``, ``provenance``). Loading never
unpickles anything.

The agent reads the reference observer's vector, which is the batched engine's ``observe`` bit for
bit, so JAX is not needed at play time; it plays the greedy masked argmax of the actor's logits.
"""

from __future__ import annotations

import functools
import json
import pathlib
from collections.abc import Callable
from typing import Any

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


def save_policy(path: str | pathlib.Path, arrays: dict[str, np.ndarray],
                metadata: dict[str, Any]) -> pathlib.Path:
    """Write a checkpoint: ``arrays`` (float32) and ``metadata`` (format and version added).

    Raises:
        ValueError: If a name is ``metadata`` or an array cannot be float32.
    """
    if "metadata" in arrays:
        raise ValueError("'metadata' is the checkpoint's own entry, not an array name")
    meta = {"format": FORMAT, "version": VERSION, **metadata}
    blob = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
    out = pathlib.Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as fh:
        entries: dict[str, Any] = {k: np.asarray(v, np.float32) for k, v in arrays.items()}
        np.savez(fh, metadata=blob, **entries)
    return out


def load_policy(path: str | pathlib.Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and metadata of a checkpoint.

    Raises:
        ValueError: If the file is missing, not such a checkpoint, or of another version.
    """
    p = pathlib.Path(path)
    if not p.is_file():
        raise ValueError(f"jax policy checkpoint {str(p)!r} not found")
    # An evaluation builds its agents anew for every game: read a file once per version of it.
    arrays, meta = _read(str(p.resolve()), p.stat().st_mtime_ns)
    return dict(arrays), dict(meta)


@functools.lru_cache(maxsize=16)
def _read(path: str, mtime_ns: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    p = pathlib.Path(path)
    try:
        with np.load(p, allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k]) for k in data.files}
    except (OSError, ValueError) as exc:
        raise ValueError(f"{str(p)!r} is not a .npz jax policy checkpoint: {exc}") from None
    blob = arrays.pop("metadata", None)
    try:
        meta = json.loads(bytes(blob).decode()) if blob is not None else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{str(p)!r} has no {FORMAT!r} metadata entry")
    if meta.get("version") != VERSION:
        raise ValueError(f"{str(p)!r} is {FORMAT} version {meta.get('version')!r}; this "
                         f"package reads version {VERSION}")
    return arrays, meta


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
        if meta.get("activation") not in ACTIVATIONS:
            raise ValueError(f"{str(path)!r} names activation {meta.get('activation')!r}; "
                             f"known: {tuple(ACTIVATIONS)}")
        self._act = ACTIVATIONS[meta["activation"]]
        hidden = list(meta.get("hidden", []))
        try:
            self.layers = [(arrays[f"actor/hidden_{i}/kernel"], arrays[f"actor/hidden_{i}/bias"])
                           for i in range(len(hidden))]
            self.out = (arrays["actor/out/kernel"], arrays["actor/out/bias"])
        except KeyError as exc:
            raise ValueError(f"{str(path)!r} lacks the actor array {exc}") from None
        self.num_actions = int(self.out[1].shape[0])
        # The batched engine's observation is the reference observer's vector; an env that
        # flattens simultaneous bids (Positano's turn-based observer) appends its commitment
        # slices after it, which the network never saw: it reads the first entries only.
        self.input_size = int(self.layers[0][0].shape[0] if self.layers else self.out[0].shape[0])

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


__all__ = ["FORMAT", "VERSION", "JaxPolicyAgent", "load_policy", "save_policy"]
