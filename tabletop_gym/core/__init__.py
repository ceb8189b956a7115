"""The engine contract, the one PettingZoo adapter and parallel view, observers, records."""
