"""Batched JAX engines of the games (optional: ``pip install tabletop-gym[jax]``).

Each game module offers the same pure functions over a fixed-shape integer state: ``init(key,
config)``, ``step(state, action)``, ``observe(state, player)``, ``legal_action_mask(state)``,
``rewards(state)``, ``terminated(state)`` and ``current_player(state)``; all are ``jax.jit``- and
``jax.vmap``-compatible. :func:`tabletop_gym.jax.core.make` binds them to a config.
"""

from __future__ import annotations

try:
    import jax  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError(
        "tabletop_gym.jax needs JAX: install the extra with `pip install tabletop-gym[jax]`"
    ) from exc
