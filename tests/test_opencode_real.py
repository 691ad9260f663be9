"""The real `opencode` binary, when one is installed: one cheap call that needs no provider."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from research.agents.base import AgentCall, FailureKind
from research.agents.opencode import OpenCodeAgent

pytestmark = pytest.mark.skipif(shutil.which("opencode") is None,
                                reason="needs a real `opencode` on PATH")


def test_real_opencode_reports_an_unknown_model_as_a_classified_failure(
    tmp_path: Path, isolated: Path
) -> None:
    log = tmp_path / "logs" / "000-initial_plan-001.log"
    call = AgentCall(phase="initial_plan", prompt="Reply with the single word OK.",
                     model="research-py-test/no-such-model", timeout=60, cwd=isolated,
                     log_path=log)
    result = OpenCodeAgent(grace=2.0).run(call)
    assert not result.ok
    assert result.failure in (FailureKind.EXIT_NONZERO, FailureKind.AGENT_ERROR)
    assert result.error
    text = log.read_text(encoding="utf-8")
    assert "command: opencode run --model research-py-test/no-such-model --format json\n" in text
    assert "Reply with the single word OK." in text
