"""Research jobs on a distributed task queue (Dramatiq over Redis), run by `research worker`.

Imported only with `--queue`: Dramatiq and redis are the optional `[cluster]` extra.
"""
