"""The arena: how agents are measured, a library under the integrations, the JAX trainer, the tasks.

It imports the envs, the agents and the registry, and nothing above them
(``tests/test_import_layers.py`` checks it); whatever trains, or writes a results page, stands
on it.

* :mod:`tabletop_gym.arena.envs`: the public lookup of a game's envs (``raw_env_factory``);
* :mod:`tabletop_gym.arena.evaluation`: seat-rotated evaluation with 95 % intervals;
* :mod:`tabletop_gym.arena.stats`: the one home of the statistics: Wilson and normal intervals,
  IQM, normalised scores and the stratified bootstrap, as ``rliable`` computes them;
* :mod:`tabletop_gym.arena.league`: round robin and Bradley–Terry ratings;
* :mod:`tabletop_gym.arena.ladder`: the frozen reference ladder (``ladder.json``);
* :mod:`tabletop_gym.arena.scripted_server`: an offline OpenAI-compatible server answering
  from a script, for ``llm:`` agents.
"""
