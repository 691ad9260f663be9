"""The shared folder's identifier (cluster/checks.py), read as untrusted ground: written
once, never followed through a link, refused when it is not one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("redis")

from research.cluster.checks import (  # noqa: E402
    SetupError,
    folder_id,
    folder_id_path,
    read_folder_id,
)


def test_a_folder_gets_one_identifier_and_keeps_it(tmp_path: Path) -> None:
    assert read_folder_id(tmp_path) is None
    first = folder_id(tmp_path)
    assert len(first) == 32 and folder_id(tmp_path) == first == read_folder_id(tmp_path)
    assert [p.name for p in folder_id_path(tmp_path).parent.iterdir()] == ["queue-folder-id"]


@pytest.mark.parametrize("kind", ["junk", "link", "directory", "fifo"])
def test_an_identifier_file_that_is_not_one_is_refused(tmp_path: Path, kind: str) -> None:
    path = folder_id_path(tmp_path)
    path.parent.mkdir()
    target = tmp_path / "elsewhere"
    target.write_text("0123456789abcdef0123456789abcdef\n")
    if kind == "junk":
        path.write_text("not an identifier")
    elif kind == "link":
        path.symlink_to(target)
    elif kind == "directory":
        path.mkdir()
    else:
        os.mkfifo(path)
    with pytest.raises(SetupError) as caught:
        folder_id(tmp_path)
    assert str(path) in str(caught.value)
    assert target.read_text() == "0123456789abcdef0123456789abcdef\n"
