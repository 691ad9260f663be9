"""The research loop, split by job.

- `loop`: the state machine over the saved phase (the entry point, `ResearchLoop`).
- `scheduler`: which topic runs now, the stop rules, what an outcome does to a topic.
- `topics`: one topic's RESEARCH and REVIEW calls with their validators.
- `runner`: one phase — agent call, transient retries, recovery, accounting → Ok | Failed.
- `finalizer`: SYNTHESIZE → FINAL REVIEW → REVISE, the fallback report, finishing.
- `decisions`: the duplicate and novelty gates and the loop decision record.
- `phases`: each phase as data; `context`: what the parts share; `outcome`: Ok | Failed.
"""

from research.engine.context import Clock, RunContext
from research.engine.loop import ResearchLoop

__all__ = ["Clock", "ResearchLoop", "RunContext"]
