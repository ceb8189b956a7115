"""Deprecated: the old home of :mod:`tabletop_gym.experiments.training`.

Importing it warns (``DeprecationWarning``) and gives the same names; import
``tabletop_gym.experiments.training`` instead.
"""

from __future__ import annotations

import warnings

from tabletop_gym.experiments.training import *  # noqa: F403

warnings.warn("tabletop_gym.training has moved to tabletop_gym.experiments.training; "
              "import it from there", DeprecationWarning, stacklevel=2)
