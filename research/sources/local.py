"""The user's own documents (--sources DIR): found, read into the snapshot store, and
listed in the research prompt of the topics they bear on."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
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


def documents(folders: Sequence[Path], root: Path) -> Iterator[tuple[str, Path]]:
    """(citation location, path) of each readable document in the folders, sorted, without
    following links out of them."""
    count = 0
    for folder in folders:
        for directory, subdirs, files in os.walk(folder):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            for name in sorted(files):
                path = Path(directory) / name
                if name.startswith(".") or path.suffix.lower() not in CONTENT_TYPES:
                    continue
                if path.is_symlink() or not path.is_file():
                    continue
                count += 1
                if count > MAX_DOCUMENTS:
                    return
                yield location(path, root), path


def read_document(path: Path) -> Extracted | None:
    """The document's readable text, or None (unreadable, too large, or no text)."""
    try:
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            return None
        body = path.read_bytes()
    except OSError:
        return None
    extracted = extract(body, CONTENT_TYPES[path.suffix.lower()], path.as_posix())
    if extracted is None:  # extract gives None for a document without text, too
        return None
    title = extracted.title.strip() or path.stem.replace("_", " ").replace("-", " ")
    return Extracted(title=title, text=extracted.text)


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
