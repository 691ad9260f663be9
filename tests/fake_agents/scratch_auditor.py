#!/usr/bin/env python3
"""A careful agent for `--agent-cmd` (hostile_agent.py's phase work) that looks at the
scratch area each call is given, and litters it once.

At the start of each call it records in AUDIT_RECORD/<n>.json the scratch area the prompt
names (its path, and the session's scratch areas there are), every entry in it
with its kind (file, link, fifo, dir), the notes and verdict copies (progress/, review/)
whose bytes are not the session's, and the files with another name (a hard link). After
its first RESEARCH call's work it leaves in the area a link to AUDIT_VICTIM/notes.md, a
FIFO, a directory holding a link to AUDIT_VICTIM, and a second name (AUDIT_RECORD/twin.md)
for a notes copy it leaves in place: no later call may find any of them.
"""

import json
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fake_opencode  # noqa: E402
import hostile_agent  # noqa: E402

WORK = Path(os.environ.get("PWD") or os.getcwd())
RECORD = Path(os.environ["AUDIT_RECORD"])
VICTIM = Path(os.environ["AUDIT_VICTIM"])
AREA = re.compile(r"\.research/\.calls/[^/\s`]+/[^/\s`]+")


def kind(path: Path) -> str:
    if path.is_symlink():
        return "link"
    if path.is_dir():
        return "dir"
    return "file" if path.is_file() else "fifo"


def audit(area: Path, name: str) -> dict[str, object]:
    entries = {}
    stale = []
    linked = []
    for top, dirs, files in os.walk(area):
        for entry in [*dirs, *files]:
            path = Path(top) / entry
            relative = path.relative_to(area)
            entries[relative.as_posix()] = kind(path)
            if kind(path) == "file" and path.lstat().st_nlink > 1:
                linked.append(relative.as_posix())
            if relative.parts[0] in ("progress", "review") and kind(path) == "file":
                original = WORK / ".research" / name / relative
                if not original.is_file() or original.read_bytes() != path.read_bytes():
                    stale.append(relative.as_posix())
    return {
        "area": str(area),
        "areas": sorted(str(path) for path in area.parent.iterdir()),
        "entries": entries,
        "stale": stale,
        "linked": linked,
    }


def litter(area: Path) -> None:
    (area / "planted-link.md").symlink_to(VICTIM / "notes.md")
    os.mkfifo(area / "planted.fifo")
    (area / "planted-dir").mkdir()
    (area / "planted-dir" / "inside").symlink_to(VICTIM, target_is_directory=True)
    os.link(min((area / "progress").glob("*.md")), RECORD / "twin.md")  # a copy, named twice


def main() -> None:
    prompt = sys.stdin.read()
    phase = fake_opencode.phase_of(prompt)
    area = WORK / AREA.search(prompt).group(0)
    number = len(list(RECORD.glob("*.json"))) + 1
    record = {"phase": phase, **audit(area, area.parent.name)}
    (RECORD / f"{number:03d}.json").write_text(json.dumps(record))
    os.environ["PWD"] = str(WORK)
    hostile_agent.phase_work(phase, prompt)
    first_research = phase == "research" and not (RECORD / "littered").exists()
    if first_research:
        (RECORD / "littered").write_text(str(area))
        litter(area)
    print(f"Did the {phase} work.", flush=True)


if __name__ == "__main__":
    main()
