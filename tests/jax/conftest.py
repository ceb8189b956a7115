"""XLA on one thread per test worker: `make test` runs two workers on a 2-core machine, and the
compiles of the batched engines are the heavy part of these tests."""

from __future__ import annotations

import os

os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)
