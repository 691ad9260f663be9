"""SessionLock: acquisition, stale rules, takeover, heartbeat, release, the keep-alive thread
(refresh, repair, loss), the guard file, and real races."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import assert_gone, dead_pid
from helpers import HANG_GUARD_SECONDS, HOST, REPO, wait_until
from helpers import write_lock as write_lock_file

from research.core.errors import SessionLockedError
from research.workspace.lock import (
    STALE_AFTER_SECONDS,
    LockFileError,
    LockInfo,
    SessionDirectoryGone,
    SessionLock,
    _FileFlock,
    own_agent_groups,
    pid_running,
    stale_reason,
)
from research.workspace.orphans import session_marker


def child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


@pytest.fixture
def lock_path(tmp_path: Path) -> Path:
    return tmp_path / ".research" / "demo" / "research.lock.json"


@pytest.fixture(autouse=True)
def released(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every lock a test takes is released at its end, so no keep-alive thread outlives it."""
    taken: list[SessionLock] = []
    acquire = SessionLock.acquire

    def tracked(self: SessionLock, *, force: bool = False):  # type: ignore[no-untyped-def]
        taken.append(self)
        return acquire(self, force=force)

    monkeypatch.setattr(SessionLock, "acquire", tracked)
    yield
    for lock in taken:
        lock.release()


def write_lock(path: Path, **fields: object) -> dict[str, object]:
    """A lock file held by this process unless `fields` say otherwise; returns its record."""
    fields.setdefault("pid", os.getpid())
    return json.loads(write_lock_file(path, **fields))


def test_fresh_acquire_writes_all_fields(lock_path: Path) -> None:
    lock = SessionLock(lock_path, clock=lambda: 1000.0, host="h1")
    got = lock.acquire()
    data = json.loads(lock_path.read_text(encoding="utf-8"))
    assert data == {
        "lock_token": lock.token,
        "generation": 1,  # the fencing token: the first acquisition's
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


@contextmanager
def refreshed(path: Path, *, heartbeat: float, every: float = 0.1) -> Iterator[None]:
    """Another host's live holder: its heartbeat value changes every `every` seconds (by
    its own clock, `heartbeat` and on: no relation to ours)."""
    stop = threading.Event()

    def beat() -> None:
        value = heartbeat
        fresh = path.with_name("fresh.tmp")  # replaced in one rename, as a holder does
        while not stop.wait(every):
            value += every
            write_lock(fresh, pid=dead_pid(), host="elsewhere", heartbeat=value, lock_token="t")
            os.replace(fresh, path)

    write_lock(path, pid=dead_pid(), host="elsewhere", heartbeat=heartbeat, lock_token="t")
    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@pytest.mark.parametrize("offset", [0.0, 3600.0, -3 * 3600.0, 1e12])
def test_another_host_s_changing_heartbeat_is_live_whatever_its_clock(
    lock_path: Path, offset: float
) -> None:
    """Its pid is not checked (it is another host's), nor its clock compared with ours: an
    hour or more ahead or behind, a heartbeat that changes is a live run, said quickly."""
    with refreshed(lock_path, heartbeat=time.time() + offset):
        started = time.monotonic()
        with pytest.raises(SessionLockedError, match="on host elsewhere"):
            SessionLock(lock_path, watch_seconds=60).acquire()
        assert time.monotonic() - started < 45  # said once it changed, not after the watch
        assert json.loads(lock_path.read_text())["host"] == "elsewhere"


@pytest.mark.parametrize("age", [0.0, 61 * 60.0, -2 * 3600.0])
def test_another_host_s_unchanged_heartbeat_is_taken_over_after_the_watch(
    lock_path: Path, age: float
) -> None:
    """However recent or old (by our clock) the heartbeat looks: unchanged for the watch."""
    old = write_lock(lock_path, pid=os.getpid(), host="elsewhere", heartbeat=time.time() - age)
    started = time.monotonic()
    got = SessionLock(lock_path, watch_seconds=0.6).acquire()
    assert time.monotonic() - started >= 0.6
    assert got.reason == "the heartbeat of host elsewhere did not change in 0.6 s"
    assert got.took_over is not None and got.took_over.lock_token == old["lock_token"]


def test_the_watch_leaves_the_guard_free_for_the_holder_s_keep_alive(lock_path: Path) -> None:
    """A real holder on another host refreshes through the guard while we watch: the
    watcher must not hold the guard (the holder's heartbeat would then stand still)."""
    holder = SessionLock(lock_path, host="elsewhere", heartbeat_interval=0.2, check_interval=0.05)
    holder.acquire()
    with pytest.raises(SessionLockedError, match="on host elsewhere"):
        SessionLock(lock_path, watch_seconds=5).acquire()
    assert holder.heartbeat() and not holder.lost.is_set()


def test_the_heartbeat_interval_fits_the_watch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESEARCH_FAILOVER_SECONDS", "10")
    lock = SessionLock(Path("unused.json"))
    assert lock.watch_seconds == 4.0 and lock.heartbeat_interval == 1.0
    monkeypatch.delenv("RESEARCH_FAILOVER_SECONDS")
    lock = SessionLock(Path("unused.json"))
    assert lock.watch_seconds == 48.0 and lock.heartbeat_interval == 5.0


def test_old_heartbeat_of_a_live_pid_here_is_taken_over(lock_path: Path) -> None:
    now = time.time()
    write_lock(lock_path, heartbeat=now - 61 * 60)
    got = SessionLock(lock_path, clock=lambda: now).acquire()
    assert got.reason == "heartbeat is 61 min old"
    assert got.took_over is not None and got.took_over.host == HOST


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


def test_an_unknown_extra_field_is_ignored_and_the_live_holder_honoured(lock_path: Path) -> None:
    write_lock(lock_path, owner="someone", version=7)
    info = SessionLock(lock_path).read()
    assert info is not None and info.pid == os.getpid()
    with pytest.raises(SessionLockedError, match=f"locked by pid {os.getpid()} "):
        SessionLock(lock_path).acquire()


def test_an_unknown_extra_field_with_a_dead_pid_is_taken_over(lock_path: Path) -> None:
    pid = dead_pid()
    write_lock(lock_path, pid=pid, owner="someone")
    got = SessionLock(lock_path).acquire()
    assert got.reason == f"pid {pid} is not running"


@pytest.mark.parametrize(
    "text",
    [
        '"heartbeat": NaN',
        '"heartbeat": Infinity',
        '"heartbeat": -Infinity',
        '"heartbeat": 1e400',
        '"created": NaN',
    ],
    ids=["nan", "inf", "-inf", "overflowing", "created-nan"],
)
def test_a_lock_with_nan_or_infinite_times_is_junk(lock_path: Path, text: str) -> None:
    data = write_lock(lock_path)
    key = text.split(":")[0].strip('"')
    raw = json.dumps({k: v for k, v in data.items() if k != key})
    lock_path.write_text(raw[:-1] + ", " + text + "}", encoding="utf-8")
    lock = SessionLock(lock_path)
    assert lock.read() is None
    assert lock.acquire().reason == "unreadable lock file"


def test_huge_negative_and_future_times_never_overflow(lock_path: Path, live_pid: int) -> None:
    now = time.time()
    write_lock(lock_path, pid=live_pid, created=1e20)
    with pytest.raises(SessionLockedError) as err:
        SessionLock(lock_path).acquire()
    assert "started at 1e+20 (not a valid time)" in str(err.value)
    write_lock(lock_path, pid=live_pid, created=-1e20, heartbeat=-1e20)
    assert SessionLock(lock_path, clock=lambda: now).acquire().reason.startswith("heartbeat is ")
    write_lock(lock_path, pid=10**30)
    assert SessionLock(lock_path).acquire().reason == f"pid {10**30} is not running"
    assert not pid_running(-5) and not pid_running(2**63)


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


# ------------------------------------------------------------------ the keep-alive thread


class Heard:
    """A listener that keeps the lock's events."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, object]]] = []
        self.mutex = threading.Lock()

    def __call__(self, kind: str, fields: dict[str, object]) -> None:
        with self.mutex:
            self.events.append((kind, fields))

    def of(self, kind: str) -> list[dict[str, object]]:
        with self.mutex:
            return [fields for k, fields in self.events if k == kind]


def keep_alive_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("research-lock-")]


def test_the_keep_alive_refreshes_the_heartbeat_between_calls_until_released(
    lock_path: Path,
) -> None:
    lock = SessionLock(lock_path, heartbeat_interval=0.1, check_interval=0.02)
    first = lock.acquire().info.heartbeat
    beats = {first}

    def four_beats() -> bool:  # nobody calls anything: the thread alone refreshes it
        info = lock.read()
        if info is not None:
            beats.add(info.heartbeat)
        return len(beats) >= 4

    wait_until(four_beats, what="four heartbeats")
    assert lock.read() is not None and lock.read().created == first  # type: ignore[union-attr]
    started = time.monotonic()
    assert lock.release() is True
    assert time.monotonic() - started < 1
    assert not lock_path.exists() and keep_alive_threads() == []


def test_release_stops_a_keep_alive_with_long_intervals_at_once(lock_path: Path) -> None:
    lock = SessionLock(lock_path)  # the product's intervals: 5 s and 1 s
    assert (lock.heartbeat_interval, lock.check_interval) == (5.0, 1.0)
    lock.acquire()
    assert len(keep_alive_threads()) == 1
    started = time.monotonic()
    lock.release()
    # At once: not after the keep-alive's 5 s interval (a bound, not a speed test).
    assert time.monotonic() - started < 4 and keep_alive_threads() == []


@pytest.mark.parametrize(
    ("damage", "repair"),
    [
        ("other pid", "changed"),
        ("other host", "changed"),
        ("older heartbeat", "changed"),
        ("deleted", "deleted"),
        ("junk", "unreadable"),
        ("empty directory", "replaced"),
        ("link outside", "replaced"),
        ("fifo", "replaced"),
    ],
)
def test_our_record_changed_or_replaced_is_written_back_and_reported(
    lock_path: Path, tmp_path: Path, live_pid: int, damage: str, repair: str
) -> None:
    heard = Heard()
    lock = SessionLock(lock_path, heartbeat_interval=60, check_interval=0.02)
    lock.listen(heard)
    ours = lock.acquire().info
    victim = tmp_path / "victim.json"
    victim.write_text("not to be touched\n")
    data = json.loads(lock_path.read_text())
    if damage == "other pid":
        rewrite(lock_path, pid=live_pid)
    elif damage == "other host":
        rewrite(lock_path, host="elsewhere")
    elif damage == "older heartbeat":
        rewrite(lock_path, heartbeat=data["heartbeat"] - 7200)
    elif damage == "deleted":
        lock_path.unlink()
    elif damage == "junk":
        lock_path.write_text("{garbage")
    else:
        lock_path.unlink()
        if damage == "empty directory":
            lock_path.mkdir()
        elif damage == "link outside":
            lock_path.symlink_to(victim)
        else:
            os.mkfifo(lock_path)
    wait_until(lambda: heard.of("lock_repaired") != [], within=5)
    (fields, *_) = heard.of("lock_repaired")
    assert fields["repair"] == repair
    if damage == "other pid":
        assert fields["found_pid"] == live_pid
    assert not lock_path.is_symlink() and lock.read() == ours
    assert victim.read_text() == "not to be touched\n"
    assert not lock.lost.is_set()
    lock.check_owned()
    assert lock.release() is True and not lock_path.exists()


@pytest.mark.parametrize("change", ["deleted", "linked to the user's files"])
def test_nothing_is_written_when_the_session_directory_is_gone_or_replaced(
    lock_path: Path, tmp_path: Path, change: str
) -> None:
    heard = Heard()
    lock = SessionLock(lock_path, heartbeat_interval=0.05, check_interval=0.02)
    lock.listen(heard)
    lock.acquire()
    session = lock_path.parent
    users = tmp_path / "users-files"
    users.mkdir()
    (users / "notes.txt").write_text("mine\n")
    session.rename(tmp_path / "moved-away")
    if change != "deleted":
        session.symlink_to(users, target_is_directory=True)
    wait_until(lambda: heard.of("warning") != [], within=5)
    for _ in range(3):  # refreshes made now, besides the thread's: none writes
        with pytest.raises(SessionDirectoryGone, match="the lock is not written there"):
            lock.heartbeat()
    (warning,) = heard.of("warning")
    assert "was deleted or replaced; the lock is not written there" in str(warning["message"])
    assert sorted(p.name for p in users.iterdir()) == ["notes.txt"]
    assert os.path.lexists(session) == (change != "deleted")
    assert lock.release() is False
    assert sorted(p.name for p in users.iterdir()) == ["notes.txt"]


def test_a_takeover_is_noticed_reported_and_stops_only_our_own_agents(lock_path: Path) -> None:
    heard = Heard()
    lock = SessionLock(lock_path, heartbeat_interval=60, check_interval=0.02)
    lock.listen(heard)
    lock.acquire()
    marked = {**os.environ, **session_marker(lock_path.parent)}
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    # Our agent call: our child, in a process group of its own, marked as the session's.
    ours = subprocess.Popen(sleeper, env=marked, start_new_session=True)
    # Another run's agent: marked as the session's too, but not our child.
    spawned = subprocess.run(
        [
            sys.executable,
            "-c",
            "import subprocess, sys; print(subprocess.Popen(sys.argv[1:], "
            "start_new_session=True, stdout=-3, stderr=-3).pid)",
            *sleeper,
        ],
        env=marked,
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = int(spawned.stdout)
    try:
        wait_until(lambda: ours.pid in own_agent_groups(lock_path.parent), within=5)
        assert theirs not in own_agent_groups(lock_path.parent)
        usurper = SessionLock(lock_path, heartbeat_interval=60, check_interval=60)
        usurper.acquire(force=True)
        wait_until(lambda: lock.lost.is_set(), within=3)
        assert ours.wait(timeout=HANG_GUARD_SECONDS) != 0  # stopped
        assert pid_running(theirs)
        with pytest.raises(
            SessionLockedError,
            match=r"^session 'demo' was taken over by pid "
            rf"{os.getpid()} on host {HOST}, .* while this run was going",
        ):
            lock.check_owned()
        wait_until(lambda: heard.of("lock_lost") != [], within=5)
        (lost,) = heard.of("lock_lost")
        assert lost["stopped_process_groups"] == [ours.pid]
        assert lock.release() is False
        assert lock.read() == usurper.read()  # the new holder's lock stays
    finally:
        ours.kill()
        ours.wait()
        os.kill(theirs, 9)
    assert_gone(theirs)


def test_check_owned_notices_a_takeover_before_the_thread_does(lock_path: Path) -> None:
    lock = SessionLock(lock_path, check_interval=60)
    lock.acquire()
    lock.check_owned()
    SessionLock(lock_path, check_interval=60).acquire(force=True)
    with pytest.raises(SessionLockedError, match="was taken over by pid"):
        lock.check_owned()
    assert lock.heartbeat() is False


def test_what_happened_before_the_listener_is_told_to_it(lock_path: Path) -> None:
    lock = SessionLock(lock_path, heartbeat_interval=60, check_interval=60)
    lock.acquire()
    lock_path.unlink()
    assert lock.heartbeat() is True and lock_path.exists()
    heard = Heard()
    lock.listen(heard)
    assert [kind for kind, _ in heard.events] == ["lock_repaired"]


# ------------------------------------------------------------------ not a file


def a_stale_lock(path: Path) -> str:
    return write_lock_file(path, pid=dead_pid(), created=1.0, heartbeat=1.0)


@pytest.mark.parametrize("where", ["lock", "guard"])
@pytest.mark.parametrize("kind", ["directory", "link", "fifo"])
def test_a_lock_or_guard_that_is_no_file_is_refused_and_never_followed(
    lock_path: Path, tmp_path: Path, where: str, kind: str
) -> None:
    victim = tmp_path / "victim.json"
    before = a_stale_lock(victim)  # followed, it would be taken over and rewritten
    lock = SessionLock(lock_path)
    target = lock_path if where == "lock" else lock.flock_path
    target.parent.mkdir(parents=True)
    if kind == "directory":
        target.mkdir()
    elif kind == "link":
        target.symlink_to(victim)
    else:
        os.mkfifo(target)
    with pytest.raises(LockFileError) as err:
        lock.acquire()
    what = {"directory": "a directory", "link": "a symbolic link", "fifo": "a FIFO"}[kind]
    name = "lock file" if where == "lock" else "lock guard file"
    message = str(err.value)
    assert message.startswith(f"the {name} {target} is {what}")
    assert message.endswith("run again") and "remove" in message
    assert victim.read_text() == before
    assert os.path.lexists(target) and lock.token is None


def test_the_guard_file_is_deleted_after_each_use(lock_path: Path) -> None:
    lock = SessionLock(lock_path)
    lock.flock_path.parent.mkdir(parents=True)
    lock.flock_path.write_text("")  # left by an older version: used, then deleted
    lock.acquire()
    assert not lock.flock_path.exists()
    assert lock.heartbeat() is True
    assert not lock.flock_path.exists()
    lock.release()
    assert not lock.flock_path.exists() and not lock_path.exists()


COUNTER = """
import pathlib, sys, time
from research.workspace.lock import _FileFlock

guard, counter, start, rounds = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4]
while not pathlib.Path(start).exists():
    time.sleep(0.002)
for _ in range(int(rounds)):
    with _FileFlock(pathlib.Path(guard)).held(60):
        value = int(counter.read_text())
        time.sleep(0.0005)
        counter.write_text(str(value + 1))
"""


def test_the_guard_excludes_although_its_file_is_deleted_at_every_release(tmp_path: Path) -> None:
    guard, counter, start = tmp_path / "g.lock", tmp_path / "counter", tmp_path / "start"
    counter.write_text("0")
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", COUNTER, str(guard), str(counter), str(start), "30"],
            env=child_env(),
        )
        for _ in range(6)
    ]
    start.touch()
    try:
        assert [w.wait(timeout=120) for w in workers] == [0] * 6
    finally:
        for w in workers:
            w.kill()
            w.wait()
    assert counter.read_text() == "180"  # no increment lost: never two holders at once
    assert not guard.exists()
    with _FileFlock(guard).held(1):
        assert guard.exists()
    assert not guard.exists()


NOW = 1_800_000_000.0


SELF = 0
"""Stands for this process's pid in parameters (a real pid would make the test ids differ
between pytest-xdist's workers)."""


@pytest.mark.parametrize(
    ("heartbeat_age", "host", "pid", "expected"),
    [
        (0, HOST, SELF, None),
        (STALE_AFTER_SECONDS, "elsewhere", 1, None),
        (STALE_AFTER_SECONDS + 60, "elsewhere", 1, None),  # another host: only a watch tells
        (-3 * 3600, "elsewhere", 1, None),  # its clock ahead of ours: not judged at a glance
        (3 * 3600, HOST, SELF, "heartbeat is 180 min old"),
        (0, HOST, -1, "pid -1 is not running"),
        (0, "elsewhere", -1, None),
        (-2 * 3600, HOST, SELF, None),  # a clock stepped back: the live pid wins
    ],
)
def test_stale_reason(heartbeat_age: float, host: str, pid: int, expected: str | None) -> None:
    pid = os.getpid() if pid == SELF else pid
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
from research.core.errors import SessionLockedError
from research.workspace.lock import SessionLock

lock_path, ready, start, result, release = map(pathlib.Path, sys.argv[1:6])
lock = SessionLock(lock_path)
ready.touch()
while not start.exists():
    time.sleep(0.002)
try:
    lock.acquire()
except SessionLockedError:
    result.write_text("locked")
    sys.exit(0)
result.write_text("won")
while not release.exists():  # held until every racer has tried
    time.sleep(0.002)
lock.release()
"""


def test_race_of_twenty_processes_has_one_winner(tmp_path: Path, lock_path: Path) -> None:
    start, release = tmp_path / "start", tmp_path / "release"
    results = [tmp_path / f"result.{i}" for i in range(20)]
    racers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                RACER,
                str(lock_path),
                str(tmp_path / f"ready.{i}"),
                str(start),
                str(results[i]),
                str(release),
            ],
            env=child_env(),
        )
        for i in range(20)
    ]

    def racers_ready() -> bool:
        assert all(p.poll() is None for p in racers), "a racer died before the start"
        return len(list(tmp_path.glob("ready.*"))) == 20

    try:
        wait_until(racers_ready, what="twenty racers ready")
        start.touch()
        # The winner holds the lock until every racer has tried (however slowly it started).
        wait_until(lambda: all(r.exists() for r in results), what="every racer's result")
        release.touch()
        codes = [p.wait(timeout=HANG_GUARD_SECONDS) for p in racers]
    finally:
        for p in racers:
            p.kill()
            p.wait()
    assert codes == [0] * 20
    assert sorted(r.read_text() for r in results) == ["locked"] * 19 + ["won"]
    assert not lock_path.exists()
    assert not lock_path.with_name(lock_path.name + ".lock").exists()


# ------------------------------------------------------------------ forged takeovers


def rewrite(lock_path: Path, **fields: object) -> None:
    """The lock record with `fields` changed, written whole in one step: a write the lock's
    checker could read half done (truncated, then filled) would be an unreadable record
    on a loaded machine, not the changed one a test means."""
    record = json.loads(lock_path.read_text())
    record.update(fields)
    spare = lock_path.with_name("spare.json")
    spare.write_text(json.dumps(record))
    os.replace(spare, lock_path)


@pytest.mark.parametrize(
    "forged",
    [
        {"pid": 1, "lock_token": "0badc0de0badc0de"},
        {"pid": 1, "lock_token": "0badc0de0badc0de", "took_over": "OURS", "proof": "0" * 64},
        {"pid": 1, "lock_token": "0badc0de0badc0de", "took_over": "OURS"},
    ],
    ids=["own token", "took_over with a wrong proof", "took_over without proof"],
)
def test_a_record_written_without_the_guard_and_key_is_repaired_not_obeyed(
    lock_path: Path, forged: dict[str, object]
) -> None:
    heard = Heard()
    lock = SessionLock(lock_path, heartbeat_interval=60, check_interval=60)
    lock.listen(heard)
    lock.acquire()
    assert lock.token is not None
    rewrite(lock_path, **{k: lock.token if v == "OURS" else v for k, v in forged.items()})
    assert lock.heartbeat() is True and not lock.lost.is_set()
    lock.check_owned()
    info = lock.read()
    assert info is not None and info.lock_token == lock.token and info.pid == os.getpid()
    (repaired,) = heard.of("lock_repaired")
    assert repaired == {"repair": "forged", "found_pid": 1, "found_host": HOST}
    assert lock.release() is True and not lock_path.exists()


def test_a_takeover_records_the_token_it_took_over_and_its_proof(lock_path: Path) -> None:
    first = SessionLock(lock_path, heartbeat_interval=60, check_interval=60)
    first.acquire()
    second = SessionLock(lock_path, heartbeat_interval=60, check_interval=60)
    taken = second.acquire(force=True)
    assert taken.info.took_over == first.token and taken.info.proof
    assert first.heartbeat() is False and first.lost.is_set()
    assert second.release() is True


def test_a_takeover_from_another_host_needs_only_the_token_it_took_over(lock_path: Path) -> None:
    """That host may keep another key: its proof cannot be checked here."""
    lock = SessionLock(lock_path, heartbeat_interval=60, check_interval=60)
    lock.acquire()
    rewrite(lock_path, lock_token="feedfacefeedface", host="elsewhere", took_over=lock.token)
    assert lock.heartbeat() is False and lock.lost.is_set()


def test_a_holder_refusing_our_takeover_makes_us_give_way(lock_path: Path) -> None:
    """Two runs that cannot check each other's proofs must not take turns writing."""
    lock = SessionLock(lock_path, heartbeat_interval=60, check_interval=60)
    lock.acquire()
    taker = SessionLock(lock_path, heartbeat_interval=60, check_interval=60)
    taker.acquire(force=True)
    rewrite(lock_path, lock_token=lock.token, took_over=None, proof=None)
    assert taker.heartbeat() is False and taker.lost.is_set()
