"""The session's stages (research/session/): the preflight reads and never writes, and says
what a run would do; the lock stage leaves nothing behind when it is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from research.core.errors import UsageError
from research.core.settings import Settings
from research.session.preflight import preflight
from research.session.run import build_agent


def _tree(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


def _refuse(question: str) -> bool:
    raise AssertionError(f"asked {question!r}")


def test_the_preflight_of_a_new_session_writes_nothing_and_says_what_it_would_do(
    tmp_path: Path,
) -> None:
    tmp_path = tmp_path / "root"
    tmp_path.mkdir()
    settings = Settings(
        root=tmp_path,
        name="pre",
        topic="Why is the sky blue?",
        breadth=2,
        depth=1,
        mock_mode=True,
        max_iterations=3,
        given=frozenset({"breadth", "depth", "max_iterations"}),
    )
    warnings: list[str] = []
    checked = preflight(settings, build_agent=build_agent, confirm=_refuse, warn=warnings.append)
    assert _tree(tmp_path) == []
    assert checked.max_iterations == 2**2 + 5
    assert warnings and "below the floor" in warnings[0]
    assert checked.describe() == (
        "start session 'pre': breadth 2, depth 1, up to 9 iterations, agent mock"
    )


def test_the_preflight_refuses_a_resume_of_nothing_and_an_existing_name(tmp_path: Path) -> None:
    tmp_path = tmp_path / "root"
    tmp_path.mkdir()
    resume = Settings(root=tmp_path, name="none", resume=True, mock_mode=True)
    with pytest.raises(UsageError, match="no saved session named 'none'"):
        preflight(resume, build_agent=build_agent, confirm=_refuse, warn=print)
    (tmp_path / ".research" / "taken").mkdir(parents=True)
    (tmp_path / ".research" / "taken" / "state.json").write_text("{}")
    before = _tree(tmp_path)
    taken = Settings(root=tmp_path, name="taken", topic="q", mock_mode=True)
    with pytest.raises(UsageError, match="already exists"):
        preflight(taken, build_agent=build_agent, confirm=_refuse, warn=print)
    assert _tree(tmp_path) == before
