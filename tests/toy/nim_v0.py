"""Nim, version 0: the versioned env module of the toy game."""

from tests.toy.nim import env, parallel_env, raw_env, raw_parallel_env, single_agent

__all__ = ["env", "parallel_env", "raw_env", "raw_parallel_env", "single_agent"]
