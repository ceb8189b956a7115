"""Deprecated: the old home of :mod:`tabletop_gym.core.turn_based`.

The turn-based transform is a ``Game -> Game`` transform that the envs and the records build
on, so it lives in ``core/``. Importing this module warns (``DeprecationWarning``) and gives the
same names; import ``tabletop_gym.core.turn_based`` instead.
"""

from __future__ import annotations

import warnings

from tabletop_gym.core.turn_based import *  # noqa: F403

warnings.warn("tabletop_gym.wrappers.turn_based has moved to tabletop_gym.core.turn_based; "
              "import it from there", DeprecationWarning, stacklevel=2)
