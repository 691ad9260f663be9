"""The second stage of a session: take its lock, and get the workspace ready under it."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from research.core.errors import RunFailed
from research.core.hosts import lock_watch_seconds
from research.engine.areas import discard_stale
from research.model.state import saved_lock_generation
from research.prompts.templates import PromptTemplates, sync_templates, write_newer_defaults
from research.workspace.fencing import fence_tree, unfence_tree
from research.workspace.guard import remove_temp_files
from research.workspace.lock import Acquired, SessionLock
from research.workspace.paths import SessionPaths

log = logging.getLogger("research")


@contextmanager
def session_lock(
    paths: SessionPaths, *, force: bool, failover: float | None = None
) -> Iterator[tuple[SessionLock, Acquired]]:
    """Hold the session's lock while the block runs (a live holder: SessionLockedError, and
    nothing is left behind, not even the session directory). Another host's lock is watched
    for 2/5 of the failover bound (`failover`; None: RESEARCH_FAILOVER_SECONDS or 120 s)."""
    created_session_dir = not paths.session_dir.exists()
    try:
        paths.session_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunFailed(f"cannot create {paths.session_dir}: {exc.strerror}") from None
    watch = None if failover is None else lock_watch_seconds(failover)
    lock = SessionLock(
        paths.lock_file,
        watch_seconds=watch,
        generation_floor=lambda: saved_lock_generation(paths.state_file),
    )
    try:
        acquired = lock.acquire(force=force)
    except BaseException:
        if created_session_dir:
            _remove_empty(paths.session_dir, paths.research_root)
        raise
    fenced = (paths.session_dir, paths.report_dir)
    for tree in fenced:  # every write below them from now on: only while the lock is ours
        fence_tree(tree, lock.fenced)
    try:
        yield lock, acquired
    finally:
        lock.release()
        for tree in fenced:
            unfence_tree(tree)


def prepare_workspace(paths: SessionPaths, warn: Callable[[str], None]) -> PromptTemplates:
    """Under the lock: clear a killed run's temporary files, make the report directory (a
    report that cannot be written must not wait for hours of research), then the templates."""
    remove_temp_files(paths)  # left by a killed run's atomic writes: ours, and locked
    discard_stale(paths)  # earlier runs' scratch areas: what their agents wrote is never read
    try:
        paths.report_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunFailed(f"cannot create {paths.report_dir}: {exc.strerror}") from None
    return load_templates(paths, warn)


def load_templates(paths: SessionPaths, warn: Callable[[str], None]) -> PromptTemplates:
    try:
        synced = sync_templates(paths.templates_dir)
    except OSError as exc:
        raise RunFailed(
            f"cannot create the templates in {paths.templates_dir}: {exc.strerror}"
        ) from None
    templates = PromptTemplates.load(paths.templates_dir)
    try:
        write_newer_defaults(paths.templates_dir, synced.kept)
    except OSError as exc:
        log.warning("could not write the newer default templates: %s", exc)
    for notice in synced.notices(paths.relative(paths.templates_dir)):
        warn(notice)
    return templates


def _remove_empty(directory: Path, up_to: Path) -> None:
    """Remove `directory` and its parents up to and including `up_to` while they are empty."""
    for path in (directory, *directory.parents):
        try:
            path.rmdir()
        except OSError:
            return
        if path == up_to:
            return
