"""The single-agent Gymnasium view over one seat of any of our AEC envs, against opponents."""
