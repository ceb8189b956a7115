"""Baseline agents: random, the heuristic bot of each game, and trained-model adapters."""

from tabletop_gym.agents.base import Agent, CallableAgent, ModelAgent, RandomAgent
from tabletop_gym.agents.heuristic import heuristic_for
from tabletop_gym.agents.kinds import make_agent

__all__ = ["Agent", "CallableAgent", "ModelAgent", "RandomAgent", "heuristic_for", "make_agent"]
