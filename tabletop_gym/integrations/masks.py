"""Masks at the autoreset step of Gymnasium vector envs.

A Gymnasium vector env in its default ``AutoresetMode.NEXT_STEP`` returns the final observation of
an episode together with ``terminated=True``; the action the policy sends on the next step is
ignored while the sub-env resets. That final observation's mask is all zeros (nobody is to act in
a finished game), so a policy that masks logits with ``-inf`` computes a softmax of nothing but
``-inf`` and gets NaN. :func:`safe_mask` makes such rows all ones: any action is as good as
another there, because the env ignores it.

Example:
    >>> import numpy as np
    >>> safe_mask(np.array([[0, 1, 0], [0, 0, 0]], dtype=np.int8)).astype(int).tolist()
    [[0, 1, 0], [1, 1, 1]]
"""

from __future__ import annotations

import numpy as np


def safe_mask(mask: np.ndarray) -> np.ndarray:
    """A boolean copy of ``mask`` (one row per env) in which all-zero rows allow every action.

    Args:
        mask: ``(num_actions,)`` or ``(num_envs, num_actions)``, any integer or bool dtype.

    Returns:
        A bool array of the same shape.
    """
    out = np.asarray(mask).astype(bool)
    empty = ~out.any(axis=-1)
    if np.any(empty):
        out[empty] = True
    return out
