"""The user's own documents (--sources DIR): found, read into the snapshot store, and
listed in the research prompt of the topics they bear on."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from research.core.similarity import content_words
from research.sources.extract import Extracted, extract

CONTENT_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
}
MAX_DOCUMENTS = 1000
"""Documents read from all folders together; the rest are ignored."""
MAX_DOCUMENT_BYTES = 50_000_000
WORDS_FROM = 20_000
"""Characters of a document whose words decide its relevance to a topic."""
LISTED = 8
"""Documents listed in one research prompt."""


def location(path: Path, root: Path) -> str:
    """How a document is cited: `file:` and its path relative to the working directory
    (absolute when it lies outside)."""
    try:
        shown = path.relative_to(root).as_posix()
    except ValueError:
        shown = path.as_posix()
    return f"file:{shown}"


@dataclass
class Found:
    """The documents of the --sources folders: the first MAX_DOCUMENTS, and how many more."""

    documents: list[tuple[str, Path]] = field(default_factory=list)
    """(citation location, path), in order."""
    over_cap: int = 0
    """Documents beyond MAX_DOCUMENTS: not read."""


def find_documents(folders: Sequence[Path], root: Path) -> Found:
    """Each document in the folders, sorted, without following links out of them."""
    found = Found()
    for path in _candidates(folders):
        if len(found.documents) < MAX_DOCUMENTS:
            found.documents.append((location(path, root), path))
        else:
            found.over_cap += 1
    return found


def _candidates(folders: Sequence[Path]) -> Iterator[Path]:
    for folder in folders:
        for directory, subdirs, files in os.walk(folder):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            for name in sorted(files):
                path = Path(directory) / name
                if name.startswith(".") or path.suffix.lower() not in CONTENT_TYPES:
                    continue
                if path.is_symlink() or not path.is_file():
                    continue
                yield path


def too_large(path: Path) -> str | None:
    """Why the document is not read because of its size, or None."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if size > MAX_DOCUMENT_BYTES:
        return f"{size / 1e6:.0f} MB, over the {MAX_DOCUMENT_BYTES / 1e6:.0f} MB limit"
    return None


def read_document(path: Path) -> Extracted | None:
    """The document's readable text, or None (unreadable, too large, or no text)."""
    try:
        if too_large(path) is not None:
            return None
        body = path.read_bytes()
    except OSError:
        return None
    extracted = extract(body, CONTENT_TYPES[path.suffix.lower()], path.as_posix())
    if extracted is None:  # extract gives None for a document without text, too
        return None
    title = extracted.title.strip() or path.stem.replace("_", " ").replace("-", " ")
    return Extracted(title=title, text=extracted.text)


SKIPPED_LISTED = 10
"""Skipped documents named one by one; the rest are counted."""


def skipped_lines(skipped: Mapping[str, str], over_cap: int) -> list[str]:
    """What was not read, and why: for the terminal and the Methodology."""
    lines = [
        f"{place} was not read: {why}" for place, why in list(skipped.items())[:SKIPPED_LISTED]
    ]
    if len(skipped) > SKIPPED_LISTED:
        lines.append(f"{len(skipped) - SKIPPED_LISTED} more documents were not read")
    if over_cap:
        lines.append(
            f"{over_cap} documents beyond the first {MAX_DOCUMENTS:,} were not read "
            f"(at most {MAX_DOCUMENTS:,} are read)"
        )
    return lines


def document_words(text: str) -> frozenset[str]:
    return frozenset(content_words(text[:WORDS_FROM]))


def relevant(
    words_by_location: Mapping[str, frozenset[str]],
    topic_text: str,
    question: str = "",
    limit: int = LISTED,
) -> list[str]:
    """The documents that share the most words with the topic (twice as much as with the
    research question), best first; a small corpus is listed whole."""
    topic, asked = content_words(topic_text), content_words(question)
    scored = []
    for place, words in words_by_location.items():
        score = 2 * len(topic & words) + len(asked & words)
        if score or len(words_by_location) <= limit:
            scored.append((-score, place))
    return [place for _, place in sorted(scored)[:limit]]
