"""A toy third game (Nim) that the registry tests add with one registration."""
