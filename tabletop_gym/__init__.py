"""tabletop-gym: Positano and Rapa Nui as research-grade multi-agent RL environments.

Importing the package registers the single-agent Gymnasium views:

* ``Positano-v0``: the official solo game against the automa Otto Amalfi (``num_players=1``);
  any player count with opponents, e.g. ``gymnasium.make("Positano-v0", num_players=3,
  opponents="heuristic")``.
* ``RapaNui-v0``: 2 players against the heuristic bot by default.

``gymnasium.make("tabletop_gym:Positano-v0")`` works without importing the package first. Where
the installed PettingZoo has a registry, the AEC and parallel envs are registered there too
(``pettingzoo.make("aec", "tabletop_gym/Positano-v0")``).
"""

from __future__ import annotations

from tabletop_gym.registration import register_envs
from tabletop_gym.version import __version__

register_envs()

__all__ = ["__version__", "register_envs"]
