"""Templates in .research/templates/ through the CLI: unedited old defaults are upgraded,
edited ones kept with a notice and a `.new` beside them, damaged ones refused (exit 2)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from research.prompts.templates import TEMPLATE_NAMES, default_templates_dir, sync_templates

QUESTION = "How do heat pumps perform in cold climates?"
ARGS = ("--mock-mode", "--breadth", "1", "--depth", "1", "--yes")
TEMPLATES = Path(".research/templates")
OLD_REVIEW = Path(__file__).resolve().parent / "fixtures" / "review.v1.md"


def default(name: str) -> bytes:
    return (default_templates_dir() / f"{name}.md").read_bytes()


def test_an_unedited_old_default_is_upgraded(run_cli) -> None:
    sync_templates(TEMPLATES)
    (TEMPLATES / "review.md").write_bytes(OLD_REVIEW.read_bytes())  # shipped in 2908f4f
    result = run_cli(*ARGS, "--name", "up", QUESTION)
    assert result.exit_code == 0, result.stderr
    assert (TEMPLATES / "review.md").read_bytes() == default("review")
    assert "upgraded the unedited templates review" in result.stderr
    assert not (TEMPLATES / "review.md.new").exists()
    again = run_cli(*ARGS, "--name", "up2", QUESTION)
    assert "upgraded" not in again.stderr and "edited" not in again.stderr


def test_an_edited_template_is_kept_with_a_notice_and_the_new_default_beside_it(run_cli) -> None:
    sync_templates(TEMPLATES)
    edited = OLD_REVIEW.read_text() + "\nBe strict about dates.\n"
    (TEMPLATES / "review.md").write_text(edited)
    result = run_cli(*ARGS, "--name", "kept", QUESTION)
    assert result.exit_code == 0, result.stderr
    assert (TEMPLATES / "review.md").read_text() == edited
    assert (TEMPLATES / "review.md.new").read_bytes() == default("review")
    notices = [
        line
        for line in result.stderr.splitlines()
        if "review.md.new" in line or "edited templates" in line
    ]
    assert len(notices) == 1 and "review.md" in notices[0], result.stderr
    logs = list(Path(".research/kept/logs").glob("*-review-*.log"))
    assert logs and all("Be strict about dates." in p.read_text() for p in logs)


@pytest.mark.parametrize("damage", ["empty", "truncated", "no variable", "no heading"])
def test_a_damaged_template_is_refused_with_how_to_restore_it(run_cli, damage: str) -> None:
    sync_templates(TEMPLATES)
    research = TEMPLATES / "research.md"
    text = research.read_text()
    research.write_text(
        {
            "empty": "",
            "truncated": text[: len(text) // 2],
            "no variable": text.replace("$progress_file", "the notes"),
            "no heading": text.replace("# Phase: RESEARCH", "# Research"),
        }[damage]
    )
    result = run_cli(*ARGS, "--name", "bad", QUESTION)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "research.md is damaged" in lines[0] and "delete it and run again" in lines[0]
    assert not Path(".research/bad").exists()
    research.unlink()  # as the message says
    assert run_cli(*ARGS, "--name", "bad", QUESTION).exit_code == 0
    assert research.read_bytes() == default("research")


def test_concurrent_first_syncs_never_show_a_partial_template(tmp_path: Path) -> None:
    target = tmp_path / "templates"
    seen: list[bytes] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            for name in TEMPLATE_NAMES:
                try:
                    seen.append((target / f"{name}.md").read_bytes())
                except FileNotFoundError:
                    pass

    watcher = threading.Thread(target=watch)
    watcher.start()
    syncs = [threading.Thread(target=sync_templates, args=(target,)) for _ in range(4)]
    for thread in syncs:
        thread.start()
    for thread in syncs:
        thread.join()
    stop.set()
    watcher.join()
    defaults = {default(name) for name in TEMPLATE_NAMES}
    assert all(data in defaults for data in seen)
    assert sorted(p.name for p in target.iterdir()) == sorted(f"{n}.md" for n in TEMPLATE_NAMES)
