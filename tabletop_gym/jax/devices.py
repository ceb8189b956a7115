"""Data parallelism over every local device: the batch of games split across a one-axis mesh.

The trainer (:class:`~tabletop_gym.jax.train.Trainer`) and the search
(:mod:`tabletop_gym.jax.search`) keep their games on a leading batch axis. With more than one
local device, that axis is split over a :class:`jax.sharding.Mesh` of them (axis name
:data:`AXIS`) and everything else (networks, optimiser state, keys) is replicated; the programs
are the same ``jax.jit`` programs, partitioned by XLA (GSPMD), so every random draw is the one a
single device makes (JAX's partitionable threefry) and the results agree with one device's up to
the order of floating-point sums. One device (a laptop, this package's CI): no mesh, nothing
changes.

Several hosts: call ``jax.distributed.initialize()`` in every process before anything else; the
mesh here spans :func:`jax.local_devices` only, so each host trains its own runs (for example
its own seeds). A multi-GPU node needs nothing: every GPU is a local device.
"""

from __future__ import annotations

from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

AXIS = "games"
"""The mesh axis the batch of games is split along."""


def data_mesh(batch_size: int, devices: int | None = None) -> Mesh | None:
    """The mesh that splits ``batch_size`` games over the local devices, or None for one.

    Args:
        batch_size: Games on the leading axis.
        devices: How many local devices to use (None: all of them; 1: no mesh).

    Raises:
        ValueError: When ``devices`` is not an integer from 1 to the local device count, or
            the batch does not split evenly over the devices.
    """
    local = jax.local_devices()
    n = len(local) if devices is None else devices
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(local):
        raise ValueError(f"devices must be an integer from 1 to the {len(local)} local "
                         f"device(s), or None for all of them; got {devices!r}")
    if n == 1:
        return None
    if batch_size % n:
        raise ValueError(f"{batch_size} games cannot be split evenly over {n} devices: make "
                         f"the batch (num_envs + eval_envs, or the search's candidates x worlds) "
                         f"a multiple of {n}, or use devices=1")
    return Mesh(local[:n], (AXIS,))


def split_games(tree: Any, mesh: Mesh | None) -> Any:
    """``tree`` with every leaf's leading (games) axis split over ``mesh`` (inside a jit).

    Under ``jax.vmap`` (the trainer's seeds) the spec is of the unbatched leaf, as JAX's
    batching rule keeps the mapped axis whole.
    """
    if mesh is None:
        return tree
    games = NamedSharding(mesh, PartitionSpec(AXIS))
    return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, games), tree)


__all__ = ["AXIS", "data_mesh", "split_games"]
