"""The rendered prompt of every phase for a fixture session equals its golden file.

A failure here means a prompt changed. If the change is intended (a template edit, or a
new value of a prompt variable), regenerate with one command and review the diff:
    .venv/bin/python tests/regen_prompts.py
"""

from __future__ import annotations

import hashlib
import json

import pytest
from golden_prompts import GOLDEN_DIR, render_all

from research.templates import TEMPLATE_NAMES, default_templates_dir

REGEN = "prompts changed: run .venv/bin/python tests/regen_prompts.py and review the diff"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return render_all(tmp_path_factory.mktemp("golden"))


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_rendered_prompt_matches_golden_file(name: str, rendered: dict[str, str]) -> None:
    golden = (GOLDEN_DIR / f"{name}.txt").read_text(encoding="utf-8")
    assert rendered[name] == golden, REGEN


def test_every_shipped_template_is_recorded_in_history() -> None:
    source = default_templates_dir()
    doc = json.loads((source / "history.json").read_text(encoding="utf-8"))
    for name in TEMPLATE_NAMES:
        current = hashlib.sha256((source / f"{name}.md").read_bytes()).hexdigest()
        shipped = doc["sha256"][name]
        assert shipped[-1] == current, f"{name}.md changed: {REGEN}"
        assert len(set(shipped)) == len(shipped)
