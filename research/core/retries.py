"""The retry policy: how often each level tries again, and what follows when it gives up.

Four levels, innermost first; each one's failure is what the next level sees. The counts
live here; what follows a level's failure lives with the phase that failed, because it is
that phase's own next step (each place named below is the only one that decides it):

1. **An agent call** (`engine/agentcall.py`, `call_agent`): a transient failure (a timeout,
   a nonzero exit, no output) is tried again after `backoff_delay`, up to
   `MAX_TRANSIENT_ATTEMPTS` tries in all. Then the call's failure is its round's.
2. **A phase's rounds** (`engine/runner.py`, `PhaseRunner.run`): output that does not
   validate gets a RECOVERY call and another round, up to `MAX_TOPIC_RECOVERIES` recovery
   rounds for a topic's RESEARCH or REVIEW and `MAX_PHASE_RECOVERIES` for the plan and the
   final cycle. No round starts that the time budget cannot cover, and a RESEARCH or REVIEW
   gets none once research time is over or the circuit breaker is open
   (`PhaseRunner.stop_recovering`). Then `run` returns `Failed`, and:
   - INITIAL PLAN (`engine/loop.py`, `ResearchLoop.initial_plan`): the run fails
     (`RunFailed`, exit 1), unless the time budget ran out, which stops research instead;
   - RESEARCH or REVIEW (`engine/iteration.py`, `TopicIteration.failed`): the topic's
     attempt failed, level 3;
   - SYNTHESIZE (`engine/finalizer.py`, `Finalizer.synthesize`): the orchestrator writes
     the fallback report (`Finalizer.fallback`); FINAL REVIEW (`Finalizer.final_review`):
     the report is kept as synthesized; REVISE (`Finalizer.revise`): the synthesized report
     is restored. The run then finishes.
3. **A topic's attempts** (`engine/rules.py`, `Rules.topic_failed` and, for a rejection,
   `Rules.apply_verdict`): a failed or rejected attempt sends the topic back to research,
   up to `MAX_TOPIC_ATTEMPTS` attempts; then `Rules.exhaust` marks the topic exhausted
   (#RETRY_EXHAUSTED) and research goes on with the others.
4. **Across topics**, the circuit breaker (`breaker_reason`, counted in
   `engine/validation.py`, checked before each RESEARCH by `Rules.stop_reason` and before
   a topic's recovery round by `PhaseRunner.stop_recovering`): phases failing for
   `BREAKER_CONSECUTIVE_FAILED_PHASES` different topics in a row, or for half of all
   phases, stop research, and the final cycle writes the report from what there is.
"""

from __future__ import annotations

import random

MAX_TRANSIENT_ATTEMPTS = 3
"""Tries of one agent call that fails transiently (level 1)."""
BACKOFF_CAP_SECONDS = 10.0
"""The longest wait before a call is tried again."""
MAX_TOPIC_RECOVERIES = 1
"""Recovery rounds of one RESEARCH or REVIEW attempt (level 2): a topic costs at most its
attempts, each with its transient retries and one recovery round."""
MAX_PHASE_RECOVERIES = 3
"""Recovery rounds of INITIAL PLAN and of each final-cycle phase (level 2)."""
MAX_TOPIC_ATTEMPTS = 3
"""Attempts of one topic before it is exhausted (level 3)."""
BREAKER_CONSECUTIVE_FAILED_PHASES = 3
"""Different topics whose phases failed in a row that open the circuit breaker (level 4)."""
BREAKER_FAILURE_RATIO = 0.5
BREAKER_MIN_PHASES = 6
"""The failure-ratio rule of the circuit breaker needs at least this many phases."""


def backoff_delay(attempt: int, rng: random.Random) -> float:
    """min(2**attempt + uniform(0, 1), 10) seconds before retry number `attempt` (0-based)."""
    return float(min(2**attempt + rng.uniform(0, 1), BACKOFF_CAP_SECONDS))


def breaker_reason(failing_in_a_row: int, phases: int, failed: int) -> str | None:
    """Why the circuit breaker opens, or None while it stays closed.

    It opens when phases failed for BREAKER_CONSECUTIVE_FAILED_PHASES *different* topics in
    a row (a systemic failure), or when at least half of all phases (at least
    BREAKER_MIN_PHASES) failed even after their retries. One topic failing its own attempts
    is that topic's exhaustion, never the breaker, so `failed` counts a topic's failed
    phases once (the caller's count), and `failing_in_a_row` counts different topics.
    """
    if failing_in_a_row >= BREAKER_CONSECUTIVE_FAILED_PHASES:
        return f"phases failed for {failing_in_a_row} different topics in a row"
    if phases >= BREAKER_MIN_PHASES and failed / phases >= BREAKER_FAILURE_RATIO:
        return f"{failed} of {phases} phases failed even after retries"
    return None
