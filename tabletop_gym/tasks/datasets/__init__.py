"""Game datasets for offline RL and imitation (``tabletop-gym dataset``, docs/datasets.md).

* :mod:`tabletop_gym.tasks.datasets.games`: the multi-agent whole-game format, one Parquet row per
  decision with every seat's final return, checksummed by a manifest, and its reader (numpy
  batches) and writer (games of any agent spec, optionally annotated with the guided search's
  value of every legal move).
* :mod:`tabletop_gym.tasks.datasets.minari_view`: Minari datasets of a task's single-agent view,
  whose reference scores are the task's random and heuristic references.
* :mod:`tabletop_gym.tasks.datasets.cards`: a dataset's card (what, how many, how it was made,
  checksums), from which the docs' tables of the standard datasets are generated.
* :mod:`tabletop_gym.tasks.datasets.cloning`: behaviour cloning on a games file (a masked-softmax
  MLP).
* :mod:`tabletop_gym.tasks.datasets.cql`: offline RL on a games file (discrete CQL with action
  masks, the reward each seat's final return).
* :mod:`tabletop_gym.tasks.datasets.offline`: an offline baseline from one command (make the
  games, fit, score with the suite's protocol).

Both formats need the ``datasets`` extra (``pyarrow``; ``minari`` for the Minari view).
"""

from __future__ import annotations
