"""Execution environments listed without extracting: formats, layouts, escapes, bounds.

Archives are built here with tarfile (a venv-like or conda-pack-like layout is enough:
only entry names matter), in every format the backend may be handed, and listed by
`list_environment`, which must say what libarchive's gzip+tar reader would do
(python_backend pb_env.cc) and never write a file, hang, or hold an archive in memory.
"""

from __future__ import annotations

import gzip
import io
import json
import lzma
import os
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest
from child_process import run_measured
from hypothesis import given, settings
from hypothesis import strategies as st

from pbtxt_lint.artifacts.python_env import (
    EnvListing,
    Limits,
    environment_key,
    list_environment,
)

LAYOUT = {
    "bin/activate": b"# activate\n",
    "bin/python3.12": b"stand-in\n",
    "conda-meta/python-3.12.7-h0_0.json": b"{}\n",
    "lib/python3.12/os.py": b"",
    "lib/python3.12/site-packages/numpy/__init__.py": b"",
    "lib/python3.12/site-packages/numpy-1.26.4.dist-info/RECORD": b"",
    "lib/python3.12/site-packages/six.py": b"",
    "lib/python3.12/site-packages/_cffi_backend.cpython-312-x86_64-linux-gnu.so": b"",
    "lib/python3.12/site-packages/google/protobuf/__init__.py": b"",
    "lib/libpython3.12.so.1.0": b"",
}


def tar_bytes(
    entries: dict[str, bytes],
    extra: list[tarfile.TarInfo] | None = None,
    after: dict[str, bytes] | None = None,
) -> bytes:
    """A tar of `entries`, then the `extra` headers (links), then `after`, in order."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info in extra or []:
            tar.addfile(info)
        for name, data in (after or {}).items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


def test_gzip_tar_lists_layout_and_modules(tmp_path: Path) -> None:
    listing = list_environment(write(tmp_path / "env.tar.gz", gzip.compress(tar_bytes(LAYOUT))))
    assert (listing.kind, listing.problem, listing.complete) == ("gzip", "", True)
    assert listing.activate and listing.python == 12 and listing.entries == len(LAYOUT)
    assert listing.modules(12) == {"numpy", "six", "_cffi_backend", "google"}
    assert listing.libpython == ("libpython3.12.so.1.0",)


def test_plain_tar_and_folder_list_the_same(tmp_path: Path) -> None:
    plain = list_environment(write(tmp_path / "env.tar", tar_bytes(LAYOUT)))
    folder = tmp_path / "env"
    for name, data in LAYOUT.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    unpacked = list_environment(folder)
    assert plain.kind == "tar" and unpacked.kind == "directory"
    for listing in (plain, unpacked):
        assert listing.activate and listing.python == 12 and not listing.problem
        assert listing.modules(12) == {"numpy", "six", "_cffi_backend", "google"}


def test_dot_slash_names_are_the_root(tmp_path: Path) -> None:
    """`tar -C env -czf env.tar.gz .` writes ./bin/activate: that is the root."""
    entries = {f"./{name}": data for name, data in LAYOUT.items()}
    listing = list_environment(write(tmp_path / "e.tgz", gzip.compress(tar_bytes(entries))))
    assert listing.activate and listing.modules(12)


@pytest.mark.parametrize(
    ("name", "data", "problem"),
    [
        ("env.tar.xz", lzma.compress(b"x" * 1024), "it is xz-compressed"),
        ("env.tar.zst", b"\x28\xb5\x2f\xfd" + bytes(16), "it is zstd-compressed"),
        ("env.tar.bz2", b"BZh91AY&SY" + bytes(16), "it is bzip2-compressed"),
        ("env.7z", b"7z\xbc\xaf\x27\x1c" + bytes(16), "it is a 7-Zip archive"),
        ("env.txt", b"hello, not an archive\n" * 40, "neither a gzip-compressed nor"),
    ],
)
def test_formats_libarchive_is_not_asked_to_read(
    tmp_path: Path, name: str, data: bytes, problem: str
) -> None:
    listing = list_environment(write(tmp_path / name, data))
    assert listing.problem_kind == "format" and problem in listing.problem


def test_zip_and_empty_files(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bin/activate", "x")
    assert list_environment(write(tmp_path / "e.zip", buffer.getvalue())).problem == (
        "it is a zip archive"
    )
    empty = list_environment(write(tmp_path / "e.tar.gz", b""))
    assert (empty.problem_kind, empty.problem) == ("empty", "it is empty")


def test_gzip_of_something_else_is_not_a_tar(tmp_path: Path) -> None:
    listing = list_environment(write(tmp_path / "e.tar.gz", gzip.compress(b"plain text\n" * 99)))
    assert listing.problem_kind == "corrupt" and "not a tar archive" in listing.problem


@pytest.mark.parametrize("cut", [40, 700, 0.5, 0.9])
def test_truncated_archives_are_corrupt(tmp_path: Path, cut: float) -> None:
    big = {**LAYOUT, "lib/python3.12/site-packages/blob.bin": os.urandom(64 << 10)}
    data = gzip.compress(tar_bytes(big))
    keep = int(cut * len(data)) if isinstance(cut, float) else cut
    listing = list_environment(write(tmp_path / "e.tar.gz", data[:keep]))
    assert listing.problem_kind == "corrupt", listing
    assert not listing.complete


def test_truncated_plain_tar_data_is_corrupt(tmp_path: Path) -> None:
    data = tar_bytes({"bin/activate": b"x", "lib/big": os.urandom(20_000)})
    listing = list_environment(write(tmp_path / "e.tar", data[:5000]))
    assert listing.problem_kind == "corrupt"


def test_a_damaged_header_mid_archive_is_corrupt(tmp_path: Path) -> None:
    """tarfile stops quietly there; libarchive fails ("Damaged tar archive")."""
    data = bytearray(tar_bytes(LAYOUT))
    data[512 * 4 : 512 * 4 + 100] = b"\xff" * 100  # garble the third member's header
    listing = list_environment(write(tmp_path / "e.tar", bytes(data)))
    assert listing.problem_kind == "corrupt" and "damaged" in listing.problem


def test_concatenated_gzip_members_are_one_stream(tmp_path: Path) -> None:
    data = tar_bytes(LAYOUT)
    half = len(data) // 2
    listing = list_environment(
        write(tmp_path / "e.tar.gz", gzip.compress(data[:half]) + gzip.compress(data[half:]))
    )
    assert listing.complete and listing.entries == len(LAYOUT) and not listing.problem


def test_escaping_entries(tmp_path: Path) -> None:
    extra = [
        link("share", "/usr/share"),
        link("lib/libz.so", "/usr/lib/libz.so"),  # a link pointing out is fine
        link("lib/hard", "../../etc/passwd", tarfile.LNKTYPE),
    ]
    entries = {**LAYOUT, "../up.txt": b"x", "/abs.txt": b"x", "a/./../../b": b"x"}
    data = tar_bytes(entries, extra, after={"share/x.txt": b"x"})  # through the link
    listing = list_environment(write(tmp_path / "e.tar", data))
    reasons = sorted((e.name, e.reason) for e in listing.escapes)
    assert reasons == [
        ("../up.txt", "dotdot"),
        ("/abs.txt", "absolute"),
        ("a/./../../b", "dotdot"),
        ("lib/hard", "hardlink"),
        ("share/x.txt", "symlink"),
    ]
    assert listing.escape_count == 5 and listing.activate


def test_top_folder_and_missing_activate(tmp_path: Path) -> None:
    nested = {f"myenv/{name}": data for name, data in LAYOUT.items()}
    listing = list_environment(write(tmp_path / "e.tar", tar_bytes(nested)))
    assert not listing.activate and listing.nested_activate == "myenv/bin/activate"
    bare = {k: v for k, v in LAYOUT.items() if k != "bin/activate"}
    listing = list_environment(write(tmp_path / "b.tar", tar_bytes(bare)))
    assert not listing.activate and not listing.nested_activate


def test_python_version_evidence(tmp_path: Path) -> None:
    venv = {
        "bin/activate": b"",
        "pyvenv.cfg": b"home = /usr/bin\ninclude-system-site-packages = true\nversion = 3.11.7\n",
        "lib/python3.11/site-packages/requests/__init__.py": b"",
    }
    listing = list_environment(write(tmp_path / "v.tar", tar_bytes(venv)))
    assert listing.python == 11 and listing.venv_python == 11 and listing.system_site_packages
    default = {"pyvenv.cfg": b"home = /usr/bin\n", "bin/activate": b""}
    assert list_environment(write(tmp_path / "d.tar", tar_bytes(default))).system_site_packages
    only_bin = {"bin/activate": b"", "bin/python3.9": b""}
    assert list_environment(write(tmp_path / "b.tar", tar_bytes(only_bin))).python == 9
    several = {"lib/python3.10/site-packages/a.py": b"", "lib/python3.11/site-packages/b.py": b""}
    assert list_environment(write(tmp_path / "s.tar", tar_bytes(several))).python is None


def test_path_hooks_and_distutils_shim(tmp_path: Path) -> None:
    site = "lib/python3.12/site-packages/"
    entries = {
        site + "distutils-precedence.pth": b"import os; var = 'SETUPTOOLS_USE_DISTUTILS'\n",
        site + "__editable__.mypkg-0.1.pth": b"/src/mypkg\n",
        site + "_distutils_hack/__init__.py": b"",
    }
    listing = list_environment(write(tmp_path / "e.tar", tar_bytes(entries)))
    assert "distutils" in listing.modules(12)
    assert listing.path_hooks == (site + "__editable__.mypkg-0.1.pth",)


def test_limits_stop_the_listing_and_say_so(tmp_path: Path) -> None:
    path = write(tmp_path / "e.tar.gz", gzip.compress(tar_bytes(LAYOUT)))
    few = list_environment(path, Limits(entries=3))
    assert not few.complete and few.stopped == "3 entries" and few.entries == 3
    late = list_environment(path, Limits(seconds=-1))
    assert not late.complete and late.stopped == "the CPU time limit"


def test_json_round_trip_and_cache_key(tmp_path: Path) -> None:
    path = write(tmp_path / "e.tar.gz", gzip.compress(tar_bytes(LAYOUT)))
    listing = list_environment(path)
    assert EnvListing.from_json(json.loads(json.dumps(listing.to_json()))) == listing
    key = environment_key(path)
    assert key is not None and environment_key(path) == key
    os.utime(path, ns=(1, 1))
    assert environment_key(path) != key
    assert environment_key(tmp_path) is None


def test_special_files_are_not_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "env.tar.gz"
    os.mkfifo(fifo)
    listing = list_environment(fifo)
    assert listing.problem_kind == "unreadable"
    assert list_environment(tmp_path / "missing.tar.gz").problem_kind == "unreadable"


def test_listing_writes_nothing(tmp_path: Path) -> None:
    archive = tmp_path / "a" / "e.tar.gz"
    archive.parent.mkdir()
    write(archive, gzip.compress(tar_bytes(LAYOUT, [link("x", "/etc")])))
    before = sorted(p.name for p in tmp_path.rglob("*"))
    cwd = os.getcwd()
    list_environment(archive)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before and os.getcwd() == cwd


_BOMB = """
import json, sys
from pathlib import Path
from pbtxt_lint.artifacts.python_env import list_environment
def peak_kib():  # VmHWM: ru_maxrss would carry the forking parent's peak
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
before = peak_kib()
listing = list_environment(Path(sys.argv[1]))
print(json.dumps({"entries": listing.entries,
                  "problem": listing.problem, "growth_mib": (peak_kib() - before) / 1024}))
"""


def test_a_gzip_bomb_member_is_skipped_in_bounded_memory(tmp_path: Path) -> None:
    """One member of 256 MiB of zeros (256 KiB compressed): inflated in steps, discarded."""
    path = tmp_path / "bomb.tar.gz"
    header = tarfile.TarInfo("lib/python3.12/site-packages/zeros.bin")
    header.size = 1 << 28
    with gzip.GzipFile(filename="", mode="wb", fileobj=path.open("wb"), mtime=0) as stream:
        stream.write(header.tobuf(format=tarfile.GNU_FORMAT))
        chunk = bytes(16 << 20)
        for _ in range(16):
            stream.write(chunk)
        stream.write(bytes(1024))
    measured = run_measured(_BOMB, path, "listing a 256 MiB member")
    assert measured["entries"] == 1 and not measured["problem"]
    assert measured["growth_mib"] < 32, measured


def test_folder_links_out_of_the_environment_are_not_listed(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "python3.12" / "site-packages" / "secret"
    outside.mkdir(parents=True)
    env = tmp_path / "env"
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "activate").write_text("")
    (env / "lib").symlink_to(tmp_path / "outside")
    listing = list_environment(env)
    assert listing.activate and listing.modules(12) == frozenset()


_SEED = gzip.compress(
    tar_bytes(LAYOUT, [link("share", "/usr/share")], after={"share/x": b"y"}), mtime=0
)


@settings(max_examples=250, deadline=None, derandomize=True)
@given(
    st.sampled_from(["gz", "tar"]),
    st.integers(min_value=0, max_value=4000),
    st.lists(st.tuples(st.integers(min_value=0, max_value=4000), st.integers(0, 255)), max_size=8),
    st.binary(max_size=64),
)
def test_damaged_archives_never_raise(
    kind: str, keep: int, edits: list[tuple[int, int]], tail: bytes
) -> None:
    """Truncated, bit-flipped and extended archives: a listing, never an exception."""
    data = bytearray(_SEED if kind == "gz" else gzip.decompress(_SEED))
    for offset, value in edits:
        if offset < len(data):
            data[offset] = value
    blob = bytes(data[:keep]) + tail
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "env.tar.gz"
        path.write_bytes(blob)
        listing = list_environment(path, Limits(seconds=5))
    assert isinstance(listing, EnvListing)
    assert listing.complete or listing.stopped
    assert all(isinstance(name, str) for name in listing.modules(12))
