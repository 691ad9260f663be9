"""Regenerate tests/golden/*.txt and record changed templates in templates/history.json.

Run after changing a template or a prompt variable's value:
    .venv/bin/python tests/regen_prompts.py
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from golden_prompts import GOLDEN_DIR, render_all  # noqa: E402

from research.prompts.templates import HISTORY_FILE, TEMPLATE_NAMES, default_templates_dir  # noqa: E402


def record_history() -> None:
    source = default_templates_dir()
    path = source / HISTORY_FILE
    doc = json.loads(path.read_text(encoding="utf-8"))
    changed = False
    for name in TEMPLATE_NAMES:
        current = hashlib.sha256((source / f"{name}.md").read_bytes()).hexdigest()
        shipped = doc["sha256"].setdefault(name, [])
        if not shipped or shipped[-1] != current:
            if current in shipped:
                shipped.remove(current)
            shipped.append(current)
            changed = True
            print(f"recorded a new version of {name}.md")
    if changed:
        doc["version"] += 1
        path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    record_history()
    GOLDEN_DIR.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as root:
        for name, text in render_all(Path(root)).items():
            (GOLDEN_DIR / f"{name}.txt").write_text(text, encoding="utf-8")
    print(f"wrote {GOLDEN_DIR}")


if __name__ == "__main__":
    main()
