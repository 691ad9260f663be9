"""--parallel: one topic's agent swaps sources/ for a link while another topic's sources are
stored. Run alone, the guard repairs the swap after the call; in parallel the store write
meets it first, and must repair it the same way instead of failing the run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import read_json, read_jsonl

QUESTION = "How do heat pumps perform in cold climates?"


def test_a_sources_link_planted_while_another_topic_stores_is_repaired(
    run_cli: Callable[..., Any], mock_script: Callable[..., Path], tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "mine.txt").write_text("the user's file\n")
    script = mock_script(
        victim=str(victim),
        sleep_seconds=0.3,
        faults=[{"action": "link_sources", "phase": "research", "calls": [2]}],
    )
    result = run_cli(
        "--mock-mode", "--mock-script", str(script), "--verify-sources",
        "--name", "x", "--breadth", "2", "--depth", "1", "--parallel", "2", QUESTION,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "file system error" not in result.stderr and ".tmp" not in result.stderr
    assert sorted(p.name for p in victim.iterdir()) == ["mine.txt"]  # nothing written there
    sources = Path(".research/x/sources")
    assert sources.is_dir() and not sources.is_symlink()
    index = read_json(sources / "index.json")["records"]
    assert index, "the pages of the topic that stored meanwhile are kept"
    events = read_jsonl(Path(".research/x/events.jsonl"))
    repairs = [e for e in events if e["type"] == "workspace_repair"]
    assert any(e["path"].endswith("sources") for e in repairs), repairs
