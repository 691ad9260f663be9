"""Agents the research loop can drive; the loop only knows the `Agent` protocol."""
