"""The engine contract, the PettingZoo adapters, observers, the turn-based transform, records."""
