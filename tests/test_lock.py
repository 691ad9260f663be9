"""SessionLock: acquisition, stale rules, takeover, heartbeat, release, and a real race."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import dead_pid

from research.errors import SessionLockedError
from research.lock import STALE_AFTER_SECONDS, LockInfo, SessionLock, stale_reason

REPO = Path(__file__).resolve().parents[1]
HOST = socket.gethostname()


def child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


@pytest.fixture
def lock_path(tmp_path: Path) -> Path:
    return tmp_path / ".research" / "demo" / "research.lock.json"


def write_lock(path: Path, **fields: object) -> dict[str, object]:
    now = time.time()
    data: dict[str, object] = {
        "lock_token": "feedfacefeedface",
        "pid": os.getpid(),
        "host": HOST,
        "created": now,
        "heartbeat": now,
        **fields,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return data


def test_fresh_acquire_writes_all_fields(lock_path: Path) -> None:
    lock = SessionLock(lock_path, clock=lambda: 1000.0, host="h1")
    got = lock.acquire()
    data = json.loads(lock_path.read_text(encoding="utf-8"))
    assert data == {
        "lock_token": lock.token,
        "pid": os.getpid(),
        "host": "h1",
        "created": 1000.0,
        "heartbeat": 1000.0,
    }
    assert len(lock.token or "") == 16
    assert got.info == lock.read()
    assert (got.took_over, got.reason) == (None, None)


def test_each_acquisition_gets_a_new_token(lock_path: Path) -> None:
    lock = SessionLock(lock_path)
    first = lock.acquire().info.lock_token
    lock.release()
    assert lock.acquire().info.lock_token != first


def test_second_instance_is_refused_with_holder_named(lock_path: Path) -> None:
    SessionLock(lock_path).acquire()
    with pytest.raises(SessionLockedError) as err:
        SessionLock(lock_path).acquire()
    message = str(err.value)
    assert f"pid {os.getpid()} on host {HOST}" in message
    assert message.startswith("session 'demo' is locked by ")
    assert message.endswith("if that process is gone, rerun with --force-resume")


def test_dead_pid_is_taken_over(lock_path: Path) -> None:
    pid = dead_pid()
    old = write_lock(lock_path, pid=pid)
    got = SessionLock(lock_path).acquire()
    assert got.took_over is not None and got.took_over.lock_token == old["lock_token"]
    assert got.reason == f"pid {pid} is not running"
    assert got.info.pid == os.getpid()


def test_dead_pid_on_another_host_is_not_checked(lock_path: Path) -> None:
    write_lock(lock_path, pid=dead_pid(), host="elsewhere")
    with pytest.raises(SessionLockedError, match="on host elsewhere"):
        SessionLock(lock_path).acquire()


def test_old_heartbeat_is_taken_over(lock_path: Path) -> None:
    now = time.time()
    write_lock(lock_path, host="elsewhere", heartbeat=now - 61 * 60)
    got = SessionLock(lock_path, clock=lambda: now).acquire()
    assert got.reason == "heartbeat is 61 min old"
    assert got.took_over is not None and got.took_over.host == "elsewhere"


def test_live_lock_is_kept_unless_forced(lock_path: Path, live_pid: int) -> None:
    write_lock(lock_path, pid=live_pid)
    with pytest.raises(SessionLockedError, match=f"pid {live_pid} "):
        SessionLock(lock_path).acquire()
    assert json.loads(lock_path.read_text(encoding="utf-8"))["pid"] == live_pid

    got = SessionLock(lock_path).acquire(force=True)
    assert got.reason == "forced"
    assert got.took_over is not None and got.took_over.pid == live_pid
    assert got.info.pid == os.getpid()


@pytest.mark.parametrize(
    "content",
    [b"", b"{not json", b"\xff\xfe\x00", b'{"lock_token": "x"}', b"[]"],
    ids=["empty", "bad-json", "binary", "missing-fields", "wrong-type"],
)
def test_corrupt_lock_file_is_taken_over(lock_path: Path, content: bytes) -> None:
    lock_path.parent.mkdir(parents=True)
    lock_path.write_bytes(content)
    lock = SessionLock(lock_path)
    assert lock.read() is None
    got = lock.acquire()
    assert (got.took_over, got.reason) == (None, "unreadable lock file")
    assert lock.read() == got.info


def test_extra_field_is_corrupt(lock_path: Path) -> None:
    write_lock(lock_path, owner="someone")
    assert SessionLock(lock_path).read() is None


def test_release_by_non_holder_keeps_the_file(lock_path: Path) -> None:
    holder = SessionLock(lock_path)
    holder.acquire()
    stranger = SessionLock(lock_path)
    stranger.release()
    assert lock_path.exists()

    usurper = SessionLock(lock_path)
    usurper.acquire(force=True)
    holder.release()
    assert SessionLock(lock_path).read() == usurper.read()
    usurper.release()
    assert not lock_path.exists()


def test_release_is_idempotent_and_tolerates_a_missing_file(lock_path: Path) -> None:
    lock = SessionLock(lock_path)
    lock.acquire()
    lock_path.unlink()
    lock.release()
    lock.release()
    assert lock.token is None


def test_heartbeat_advances_with_the_clock(lock_path: Path) -> None:
    now = [5000.0]
    lock = SessionLock(lock_path, clock=lambda: now[0])
    lock.acquire()
    now[0] = 5123.5
    assert lock.heartbeat() is True
    info = lock.read()
    assert info is not None and (info.created, info.heartbeat) == (5000.0, 5123.5)


def test_heartbeat_reports_a_lost_lock(lock_path: Path) -> None:
    lock = SessionLock(lock_path)
    assert lock.heartbeat() is False
    lock.acquire()
    SessionLock(lock_path).acquire(force=True)
    assert lock.heartbeat() is False
    lock_path.unlink()
    assert lock.heartbeat() is False
    assert not lock_path.exists()


def test_keep_alive_refreshes_and_exits_at_once(lock_path: Path) -> None:
    lock = SessionLock(lock_path)
    first = lock.acquire().info.heartbeat
    with lock.keep_alive(0.05):
        time.sleep(0.3)
    info = lock.read()
    assert info is not None and info.heartbeat > first

    started = time.monotonic()
    with lock.keep_alive(60):
        pass
    assert time.monotonic() - started < 1


NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("heartbeat_age", "host", "pid", "expected"),
    [
        (0, HOST, os.getpid(), None),
        (STALE_AFTER_SECONDS, "elsewhere", 1, None),
        (STALE_AFTER_SECONDS + 60, "elsewhere", 1, "heartbeat is 61 min old"),
        (3 * 3600, HOST, os.getpid(), "heartbeat is 180 min old"),
        (0, HOST, -1, "pid -1 is not running"),
        (0, "elsewhere", -1, None),
    ],
)
def test_stale_reason(heartbeat_age: float, host: str, pid: int, expected: str | None) -> None:
    info = LockInfo(
        lock_token="t", pid=pid, host=host, created=NOW - 7200, heartbeat=NOW - heartbeat_age
    )
    assert stale_reason(info, now=NOW, host=HOST) == expected


def test_stale_reason_pid_1_counts_as_running() -> None:
    # pid 1 always exists; if it belongs to another user, PermissionError still means "running".
    info = LockInfo(lock_token="t", pid=1, host=HOST, created=NOW, heartbeat=NOW)
    assert stale_reason(info, now=NOW, host=HOST) is None


def test_describe() -> None:
    info = LockInfo(lock_token="t", pid=1234, host="myhost", created=NOW, heartbeat=NOW - 200)
    text = info.describe(NOW)
    assert text.startswith("pid 1234 on host myhost, started ")
    assert text.endswith(", last heartbeat 3 min ago")
    assert info.describe(NOW - 170).endswith("last heartbeat 30 s ago")


RACER = """
import pathlib, sys, time
from research.errors import SessionLockedError
from research.lock import SessionLock

lock_path, ready, start = map(pathlib.Path, sys.argv[1:4])
lock = SessionLock(lock_path)
ready.touch()
while not start.exists():
    time.sleep(0.002)
try:
    lock.acquire()
except SessionLockedError:
    print("locked")
    sys.exit(0)
print("won", flush=True)
time.sleep(1.0)
lock.release()
"""


def test_race_of_twenty_processes_has_one_winner(tmp_path: Path, lock_path: Path) -> None:
    start = tmp_path / "start"
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(lock_path), str(tmp_path / f"ready.{i}"), str(start)],
            stdout=subprocess.PIPE,
            text=True,
            env=child_env(),
        )
        for i in range(20)
    ]
    try:
        deadline = time.monotonic() + 30
        while len(list(tmp_path.glob("ready.*"))) < 20:
            assert time.monotonic() < deadline, "racers did not start"
            assert all(p.poll() is None for p in racers), "a racer died before the start"
            time.sleep(0.01)
        start.touch()
        outputs = [p.communicate(timeout=30)[0].strip() for p in racers]
    finally:
        for p in racers:
            p.kill()
            p.wait()
    assert all(p.returncode == 0 for p in racers)
    assert sorted(outputs) == ["locked"] * 19 + ["won"]
    assert not lock_path.exists()
