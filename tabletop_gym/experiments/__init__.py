"""Experiments over the envs: training, evaluation, the league and the baselines page.

The floor above the public API: these modules import the envs, the agents, the wrappers and the
integrations, and nothing in ``core/``, ``envs/``, ``agents/`` or ``wrappers/`` imports them
(``tests/test_import_layers.py`` checks it).

* :mod:`tabletop_gym.experiments.training`: ``MaskablePPO`` training with each env's recipe;
* :mod:`tabletop_gym.experiments.evaluation`: seat-rotated evaluation with 95 % intervals;
* :mod:`tabletop_gym.experiments.league`: round robin and Bradley–Terry ratings;
* :mod:`tabletop_gym.experiments.baselines`: ``make baselines``, ``docs/baselines.md``.
"""
