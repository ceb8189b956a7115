"""The package's version: the one source that ``pyproject.toml`` and every results file read.

It stands alone (standard library, no import) so that the lowest floors can name the version
without importing the package's face, which registers the envs.
"""

from __future__ import annotations

__version__ = "0.1.0"
