"""Game transforms (turn-based bids) and the single-agent Gymnasium view."""
