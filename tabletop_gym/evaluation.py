"""Deprecated: the old home of :mod:`tabletop_gym.experiments.evaluation`.

Importing it warns (``DeprecationWarning``) and gives the same names; import
``tabletop_gym.experiments.evaluation`` instead.
"""

from __future__ import annotations

import warnings

from tabletop_gym.experiments.evaluation import *  # noqa: F403

warnings.warn("tabletop_gym.evaluation has moved to tabletop_gym.experiments.evaluation; "
              "import it from there", DeprecationWarning, stacklevel=2)
