"""workspace/holders.py: which processes hold something inside a directory (Linux /proc),
with real processes that hold it in each way, and some that only look as if they did."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import research.workspace.holders as holders_module
from research.workspace.holders import Holder, boot_clock, holders, kernel_path

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

MMAP = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
shared = sys.argv[2] == "shared"
fd = os.open(sys.argv[1], os.O_RDWR if shared else os.O_RDONLY)
address = libc.mmap(None, 4096, 3 if shared else 1, 1 if shared else 2, fd, 0)
assert address not in (None, ctypes.c_void_p(-1).value), ctypes.get_errno()
os.close(fd)  # only the mapping is left
"""
THREAD_CWD = """
import ctypes, os, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
def inside():
    assert libc.unshare(0x200) == 0, ctypes.get_errno()  # CLONE_FS: a cwd of its own
    os.chdir(sys.argv[1])
    print("ready", flush=True)
    threading.Event().wait()
threading.Thread(target=inside, daemon=True).start()
sys.stdin.read()
"""
THREAD_FILE = """
import ctypes, os, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
def inside():
    assert libc.unshare(0x400) == 0, ctypes.get_errno()  # CLONE_FILES: a table of its own
    os.open(sys.argv[1], os.O_RDONLY)
    print("ready", flush=True)
    threading.Event().wait()
threading.Thread(target=inside, daemon=True).start()
sys.stdin.read()
"""
WAIT = "\nprint('ready', flush=True)\nsys.stdin.read()\n"


@pytest.fixture
def area(tmp_path: Path) -> Path:
    area = tmp_path / "area"
    (area / "sub").mkdir(parents=True)
    (area / "sub" / "copy.md").write_bytes(b"x" * 4096)
    (tmp_path / "area2").mkdir()  # its name starts like the area's
    (tmp_path / "area2" / "other.md").write_bytes(b"y" * 4096)
    return area


def path_of(directory: Path) -> str:
    info = os.lstat(directory)
    found = kernel_path(os.fspath(directory), (info.st_dev, info.st_ino))
    assert found is not None
    return found


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[str]]]:
    children: list[subprocess.Popen[str]] = []
    yield children
    for child in children:
        child.kill()
        child.communicate()  # closes its pipes too


def start(children: list[subprocess.Popen[str]], code: str, *args: str, cwd: Path) -> int:
    """A Python child running `code`, once it says it is ready; its pid."""
    child = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    children.append(child)
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    return child.pid


def test_nothing_holds_a_directory_nobody_is_in(area: Path) -> None:
    assert holders(path_of(area), boot_clock()) == []


def test_a_working_directory_an_open_file_and_a_shared_mapping_inside_are_found(
    area: Path, started: list[subprocess.Popen[str]]
) -> None:
    copy = os.fspath(area / "sub" / "copy.md")
    in_cwd = start(started, "import sys" + WAIT, cwd=area / "sub")
    opened = start(started, f"import sys\nf = open({copy!r}, 'rb')" + WAIT, cwd=area.parent)
    mapped = start(started, MMAP + WAIT, copy, "shared", cwd=area.parent)
    own_cwd = start(started, THREAD_CWD, os.fspath(area), cwd=area.parent)
    own_file = start(started, THREAD_FILE, copy, cwd=area.parent)
    assert os.listdir(f"/proc/{own_file}/fd") == ["0", "1", "2"]  # not in its first thread's
    found = holders(path_of(area), boot_clock())
    assert found is not None
    assert sorted(found, key=lambda holder: holder.pid) == sorted(
        [
            Holder(in_cwd, "its working directory"),
            Holder(opened, "an open file"),
            Holder(mapped, "a shared mapping of a file"),
            Holder(own_cwd, "its working directory"),  # one thread's, not the process's
            Holder(own_file, "an open file"),  # likewise
        ],
        key=lambda holder: holder.pid,
    )


def test_a_private_mapping_and_a_directory_named_alike_hold_nothing(
    area: Path, started: list[subprocess.Popen[str]]
) -> None:
    """A private mapping never writes to its file; `area2` is not inside `area`."""
    start(started, MMAP + WAIT, os.fspath(area / "sub" / "copy.md"), "private", cwd=area.parent)
    other = os.fspath(area.parent / "area2" / "other.md")
    start(started, f"import sys\nf = open({other!r}, 'rb')" + WAIT, cwd=area.parent / "area2")
    assert holders(path_of(area), boot_clock()) == []


def test_a_process_in_a_renamed_directory_is_found_by_its_new_name(
    area: Path, started: list[subprocess.Popen[str]]
) -> None:
    pid = start(started, "import sys" + WAIT, cwd=area / "sub")
    renamed = area.with_name("renamed")
    os.rename(area, renamed)
    assert holders(path_of(renamed), boot_clock()) == [Holder(pid, "its working directory")]


def test_the_kernel_path_is_none_for_a_link_or_another_directory(area: Path) -> None:
    info = os.lstat(area)
    link = area.with_name("link")
    link.symlink_to(area)
    assert kernel_path(os.fspath(link), (info.st_dev, info.st_ino)) is None
    assert kernel_path(os.fspath(area / "sub"), (info.st_dev, info.st_ino)) is None
    assert kernel_path(os.fspath(area), (info.st_dev, info.st_ino)) == os.path.realpath(area)


def test_without_proc_it_cannot_tell(area: Path, tmp_path: Path) -> None:
    assert holders(path_of(area), boot_clock(), proc=os.fspath(tmp_path / "none")) is None


@pytest.mark.skipif(holders_module._KCMP is None, reason="kcmp's number not known here")
def test_threads_sharing_their_table_of_open_files_are_told_apart_by_kcmp(
    started: list[subprocess.Popen[str]], area: Path
) -> None:
    """A thread that shares its process's table is not read again (one kcmp call), one
    that has its own is."""
    code = "import sys, threading\nthreading.Thread(target=sys.stdin.read, daemon=True).start()"
    pid = start(started, code + WAIT, cwd=area)
    own = start(started, THREAD_FILE, os.fspath(area / "sub" / "copy.md"), cwd=area.parent)
    for process, shared in ((pid, True), (own, False)):
        tids = [tid for tid in os.listdir(f"/proc/{process}/task") if tid != str(process)]
        assert tids
        assert [holders_module._same_files(str(process), tid) for tid in tids] == [shared] * len(
            tids
        )


HIDDEN = """
import ctypes, sys
assert ctypes.CDLL(None).prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE 0: /proc hides it
"""
SCAN = """
import sys
from research.workspace.holders import holders
print(holders(sys.argv[1], float(sys.argv[2])))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a non-dumpable process of one's own uid")
def test_a_process_we_may_not_read_hides_the_answer_only_when_it_started_after_the_area(
    area: Path, started: list[subprocess.Popen[str]]
) -> None:
    """A process that made itself non-dumpable cannot be read by an ordinary user (here: root
    without the capability that reads any process, as the drop in test_fencing does): if it
    started after the area was made it may be an agent's, and the answer is "cannot tell";
    one that started before is passed over."""
    born = boot_clock()
    start(started, HIDDEN + WAIT, cwd=area.parent)
    after = boot_clock()
    caps = "-sys_ptrace,-dac_override,-dac_read_search"
    drop = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}", "--"]

    def scan(since: float) -> str:
        done = subprocess.run(
            [*drop, sys.executable, "-c", SCAN, path_of(area), str(since)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert scan(born) == "None"
    assert scan(after + 0.02) == "[]"
