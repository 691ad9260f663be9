"""The research loop, split by job.

- `loop`: the state machine over the saved phase (the entry point, `ResearchLoop`).
- `scheduler`: which topics run now, with one topic in flight or up to N.
- `iteration`: one topic's RESEARCH → source check → REVIEW → decision, written once.
- `modes`: what differs between one topic in flight and several (who keeps the plan,
  where the state records the topics in flight, which threads run the iterations).
- `rules`: the stop rules and what an outcome does to a topic.
- `topics`: one topic's RESEARCH and REVIEW calls with their validators.
- `topicfiles`: with several topics in flight, undo writes outside a call's own files.
- `runner`: one phase — agent call, transient retries, recovery, accounting → Ok | Failed.
- `finalizer`: SYNTHESIZE → FINAL REVIEW → REVISE, the fallback report, finishing.
- `decisions`: the duplicate and novelty gates and the loop decision record.
- `sourcecheck`: checking what the notes and the report cite; `snapshots`: fetching the
  cited pages into the snapshot store; `userdocs`: the user's own documents (--sources);
  `verify`: VERIFY, the agent judging the report's cited sentences (--judge).
- `specs`: each phase as data; `context`: what the parts share; `outcome`: Ok | Failed.
"""

from research.engine.context import Clock, RunContext
from research.engine.loop import ResearchLoop

__all__ = ["Clock", "ResearchLoop", "RunContext"]
