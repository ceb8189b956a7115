"""Game-agnostic batched JAX machinery (optional: ``pip install tabletop-gym[jax]``).

Each game's batched twin lives in its package (``tabletop_gym.envs.<game>.batched``) and offers
the same pure functions over a fixed-shape integer state: ``init(key, config)``, ``step(state,
action)``, ``observe(state, player)``, ``legal_action_mask(state)``, ``rewards(state)``,
``terminated(state)`` and ``current_player(state)``; all are ``jax.jit``- and
``jax.vmap``-compatible. :func:`tabletop_gym.jax.core.make` binds them to a config; this package
builds the batched env, the trainer, the search and the distillation on them.
"""

from __future__ import annotations

try:
    import jax  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError(
        "tabletop_gym.jax needs JAX: install the extra with `pip install tabletop-gym[jax]`"
    ) from exc
