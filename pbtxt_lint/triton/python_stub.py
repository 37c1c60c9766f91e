"""What each Triton release's Python backend runs model.py with, kept as data.

The Python backend runs model.py in a stub process, `triton_python_backend_stub`,
linked to one `libpython3.X`. The container's stub is built against the container's
`python3`, so its Python is the one of the container's Ubuntu; a stub placed in the
model folder replaces it (python_backend stub_launcher.cc, `StubLauncher::Launch`).
Facts only, each with where it comes from:

- `STUB_PYTHON`: the default stub's Python per release. Sources: server `build.py` of
  each release branch (`base_image = "ubuntu:22.04"`/`"ubuntu:24.04"`; its python
  backend section installs Ubuntu's `python3` and `libpython3-dev`), server
  `qa/L0_backend_python/test.sh` (`PYTHON_ENV_VERSION`, the container's minor version,
  "10" from r23.08 to r24.10 and "12" from r24.11), `qa/L0_backend_python/env/test.sh`
  (packs `python3.8.tar.gz` as the default-version environment from r22.01 to r23.04,
  `python3.10.tar.gz` from r23.05, `python3.12.tar.gz` from r24.11), and python_backend's
  README ("Python backend shipped in the NVIDIA GPU Cloud containers uses Python 3.8"
  from r21.06 to r23.04, "3.10" from r23.05; it kept saying 3.10 until r25.11 although
  the containers moved to Ubuntu 24.04 and Python 3.12 at r24.11). 26.09 (2.73) is the
  server main branch at 2.73.0dev. The nvidia-pytriton 0.7.0 wheel (tritonserver 2.51)
  ships stubs for Python 3.8 to 3.13 (`python_backend_stubs/3.X/`); their ELF dynamic
  sections name `libpython3.X.so.1.0` (3.13: the auditwheel-renamed
  `libpython3-419a3a08.13.so.1.0`).
- `CONTAINER_PACKAGES`: the top-level modules the container's Python has for the backend.
  Server `build.py`, python backend section: `pip3 install wheel setuptools numpy`
  (`"numpy<2"` from r24.04) and `virtualenv` from r24.04, with Ubuntu's `python3-pip`.
- The environment behaviour by release, from python_backend's history: `pb_env.cc`
  extracts with `ARCHIVE_EXTRACT_SECURE_NODOTDOT | _NOABSOLUTEPATHS | _SECURE_SYMLINKS`
  from r26.06 (commit 3033a6b, "Validate archive entry paths when unpacking
  EXECUTION_ENV_PATH"), with `ARCHIVE_EXTRACT_TIME` only before; `stub_launcher.cc`
  waits at most 10 s for a starting stub from r25.09 (commit 8f2df55) and forever before.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbtxt_lint.targets import NEWEST, Release

Version = tuple[int, int]

__all__ = [
    "CONTAINER_PACKAGES",
    "SECURE_EXTRACTION_SINCE",
    "STUB_PYTHON",
    "STUB_START_TIMEOUT_SINCE",
    "StubPython",
    "container_modules",
    "default_stub_python",
]


@dataclass(frozen=True)
class StubPython:
    """The default stub's Python for a range of releases (server versions, inclusive)."""

    first: Version
    last: Version
    python: Version
    source: str


STUB_PYTHON: tuple[StubPython, ...] = (
    StubPython(
        (2, 11),
        (2, 33),
        (3, 8),
        "21.06-23.04: Ubuntu 20.04; python_backend README 'uses Python 3.8', server "
        "env test packs python3.8 as the default from 22.01",
    ),
    StubPython(
        (2, 34),
        (2, 51),
        (3, 10),
        "23.05-24.10: Ubuntu 22.04 (server build.py); server qa PYTHON_ENV_VERSION=10 "
        "from 23.08; python_backend README 'uses Python 3.10'",
    ),
    StubPython(
        (2, 52),
        (2, 73),
        (3, 12),
        "24.11-26.09: Ubuntu 24.04 (server build.py base image ubuntu:24.04); server qa "
        "PYTHON_ENV_VERSION=12 and the env test's python3.12 default from 24.11",
    ),
)
"""Releases before 21.06 (the Python backend appeared in 20.10) are not listed: the
sources above do not state their Python, so no rule judges a stub version there."""

CONTAINER_PACKAGES: tuple[tuple[Version, frozenset[str]], ...] = (
    ((2, 11), frozenset({"numpy", "pip", "setuptools", "pkg_resources", "_distutils_hack"})),
    ((2, 11), frozenset({"wheel"})),
    ((2, 45), frozenset({"virtualenv"})),
)
"""(first release, top-level modules) of what the container's Python has installed."""

SECURE_EXTRACTION_SINCE: Version = (2, 70)
"""26.06: archive entries that escape the extraction folder are refused."""
STUB_START_TIMEOUT_SINCE: Version = (2, 61)
"""25.09: a stub that never starts fails the load after 10 s ("Stub process '<name>' is
not healthy."); earlier releases wait forever."""


def _server(release: Release | None) -> Version:
    return (release or NEWEST).server


def default_stub_python(release: Release | None) -> StubPython | None:
    """The default stub's Python of `release` (None: the newest); None when unknown."""
    server = _server(release)
    return next((s for s in STUB_PYTHON if s.first <= server <= s.last), None)


def container_modules(release: Release | None) -> frozenset[str]:
    """Top-level modules the container's Python provides besides its standard library."""
    server = _server(release)
    found: set[str] = set()
    for first, names in CONTAINER_PACKAGES:
        if server >= first:
            found |= names
    return frozenset(found)
