"""What each phase must leave behind, and how the orchestrator reads it back.

These functions read the files an agent wrote and either return what they mean or raise
PhaseFailed with a message that is fed to the RECOVERY phase. They never trust the agent.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from pydantic import ValidationError

from research.core.errors import PhaseFailed, PlanParseError
from research.model.plan import ParsedTopic, Plan, Topic, parse_plan
from research.model.state import Verdict
from research.workspace.fsutil import NOT_REGULAR as NOT_REGULAR  # re-exported: first defined here
from research.workspace.fsutil import read_regular as read_regular
from research.workspace.paths import SessionPaths

JSON_BLOCK = re.compile(r"```json[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL | re.IGNORECASE)
COMPLETION_PROMISE = "<promise>COMPLETE</promise>"


def read_text(path: Path) -> str | None:
    """A regular file's text, or None when it is missing, unreadable, or not a regular file
    (a link or FIFO an agent left is never followed or opened for reading)."""
    data = read_regular(path)
    if data is None or data == NOT_REGULAR:
        return None
    return data.decode("utf-8", errors="replace")


def modification_stamp(path: Path) -> tuple[int, str] | None:
    """(mtime in ns, content hash) of a regular file, or None when it cannot be read (or is
    a link, FIFO or directory: never followed, never opened). Either part changing means
    the file was written again (mtimes alone are too coarse)."""
    try:
        mtime = os.lstat(path).st_mtime_ns
    except OSError:
        return None
    data = read_regular(path)
    if data is None or data == NOT_REGULAR:
        return None
    return mtime, hashlib.sha256(data).hexdigest()


def require_file(path: Path, paths: SessionPaths, *, what: str) -> str:
    """The non-empty text of a file the phase had to write, else PhaseFailed."""
    text = read_text(path)
    if text is None:
        raise PhaseFailed(f"{what} {paths.relative(path)} was not written", kind="missing_files")
    if not text.strip():
        raise PhaseFailed(f"{what} {paths.relative(path)} is empty", kind="missing_files")
    return text


def parse_verdict_file(text: str, *, expected: str, filename: str) -> Verdict:
    """The verdict of a review file: its first fenced ```json block, validated."""
    match = JSON_BLOCK.search(text)
    if match is None:
        raise PhaseFailed(f"{filename} has no fenced ```json block with the verdict")
    try:
        data = json.loads(match.group(1))
    except json.JSONDecodeError as exc:
        raise PhaseFailed(f"{filename}: the ```json block is not valid JSON ({exc})") from None
    try:
        verdict = Verdict.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'block'}: {err['msg']}"
            for err in exc.errors()
        )
        raise PhaseFailed(f"{filename}: the verdict block is invalid ({problems})") from None
    if verdict.verdict != expected:
        raise PhaseFailed(
            f"{filename} says verdict {verdict.verdict!r}; the file name says {expected!r}"
        )
    return verdict


def read_verdict(
    paths: SessionPaths, accepted_file: Path | None = None, rejected_file: Path | None = None
) -> Verdict:
    """Exactly one of the accepted / rejected verdict files, with a valid JSON block."""
    accepted_path = accepted_file or paths.accepted_file
    rejected_path = rejected_file or paths.rejected_file
    a_name, r_name = accepted_path.name, rejected_path.name
    accepted = read_text(accepted_path)
    rejected = read_text(rejected_path)
    if accepted is not None and rejected is not None:
        raise PhaseFailed(f"both {a_name} and {r_name} were written; exactly one is required")
    if accepted is None and rejected is None:
        raise PhaseFailed(f"neither {a_name} nor {r_name} was written", kind="missing_files")
    if accepted is not None:
        return parse_verdict_file(accepted, expected="accepted", filename=a_name)
    assert rejected is not None
    return parse_verdict_file(rejected, expected="rejected", filename=r_name)


def tree_order(plan: Plan) -> list[Topic]:
    """Topics depth-first in plan order: each topic followed by its subtree."""
    ordered: list[Topic] = []

    def visit(parent: str | None) -> None:
        for topic in plan.topics:
            if topic.parent == parent:
                ordered.append(topic)
                visit(topic.slug)

    visit(None)
    return ordered


PROPOSED = re.compile(r"^## Proposed Subtopics[ \t]*$(.*?)(?=^## |\Z)", re.MULTILINE | re.DOTALL)


def proposed_subtopics(notes: str) -> list[ParsedTopic]:
    """The subtopics a topic's notes propose: each `### Name` entry (with its description
    and acceptance criteria) under `## Proposed Subtopics`, read like a plan's topics."""
    match = PROPOSED.search(notes)
    if match is None:
        return []
    try:
        return parse_plan("## Topics\n" + match.group(1)).topics
    except PlanParseError:  # a section without entries
        return []
