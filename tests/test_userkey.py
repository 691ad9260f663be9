"""The user's key: made once, 0600 in a 0700 directory outside the working directory,
never read through a link, and a file that holds no key is refused with one clear line."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from research.workspace import userkey


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "elsewhere-state"
    monkeypatch.setenv("XDG_STATE_HOME", str(where))
    return where / "research-py"


def test_the_key_is_made_once_private_and_outside_the_working_directory(
    state: Path, isolated: Path
) -> None:
    key = userkey.user_key()
    path = state / "key"
    assert len(key) == userkey.KEY_BYTES and path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert not str(path).startswith(str(isolated))
    userkey._cache.clear()
    assert userkey.user_key() == key  # read back, not made again
    assert sorted(p.name for p in state.iterdir()) == ["key"]


def test_signatures_depend_on_the_key() -> None:
    assert userkey.sign(b"a" * 32, "x", "y") != userkey.sign(b"b" * 32, "x", "y")
    assert userkey.sign(b"a" * 32, "x", "y") != userkey.sign(b"a" * 32, "xy")
    assert userkey.key_id(b"a" * 32) != userkey.key_id(b"b" * 32)


@pytest.mark.parametrize("kind", ["link", "junk", "directory"])
def test_a_key_file_that_is_no_key_is_refused_and_left_alone(
    state: Path, tmp_path: Path, kind: str
) -> None:
    state.mkdir(parents=True)
    path = state / "key"
    victim = tmp_path / "victim"
    victim.write_text("ab" * 32)
    if kind == "link":
        path.symlink_to(victim)
    elif kind == "junk":
        path.write_text("not a key")
    else:
        path.mkdir()
    with pytest.raises(userkey.KeyFileError, match=r"^the key file .* remove it and run again"):
        userkey.user_key()
    assert os.path.lexists(path) and victim.read_text() == "ab" * 32


@pytest.mark.parametrize("kind", ["link", "junk", "directory", "short"])
def test_a_bad_key_file_stops_the_run_in_preflight_writing_nothing(
    state: Path, tmp_path: Path, isolated: Path, run_cli, kind: str
) -> None:
    state.mkdir(parents=True)
    path = state / "key"
    if kind == "link":
        (tmp_path / "victim").write_text("ab" * 32)
        path.symlink_to(tmp_path / "victim")
    elif kind == "junk":
        path.write_text("not a key")
    elif kind == "short":
        path.write_text("ab" * 8)
    else:
        path.mkdir()
    userkey._cache.clear()
    args = ("--mock-mode", "--name", "k", "--breadth", "1", "--depth", "1", "Heat pumps?")
    result = run_cli(*args)
    assert result.exit_code == 2, result.stderr
    assert f"the key file {path}" in result.stderr
    assert list(isolated.iterdir()) == []  # no .research/k/ to block a plain rerun
    if kind != "link":
        path.unlink() if not path.is_dir() else path.rmdir()
        userkey._cache.clear()
        assert run_cli(*args).exit_code == 0
