"""Which version folders Triton loads (`VersionsToLoad` in model_lifecycle.cc).

Triton skips `warmup`, `initial_state` and `configs`, ignores names with leading zeros
or without a leading integer, and reads a numeric *prefix* (`1_old` is version 1) the
way `std::stoll` does. Then the version policy picks among what is left.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from pbtxt_lint.schema import ModelConfig

SPECIAL_FOLDERS = ("warmup", "initial_state", "configs")
_STOLL_PREFIX = re.compile(r"\s*[+-]?\d+")
_INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class VersionFolder:
    folder: str
    version: int

    @property
    def exact(self) -> bool:
        """True when the folder name is exactly the version number."""
        return self.folder == str(self.version)


@dataclass
class VersionScan:
    """Sub-folders sorted into what Triton does with them."""

    versions: list[VersionFolder] = field(default_factory=list)
    leading_zeros: list[str] = field(default_factory=list)
    not_numeric: list[str] = field(default_factory=list)
    special: list[str] = field(default_factory=list)


def scan_version_folders(subfolders: Iterable[str]) -> VersionScan:
    scan = VersionScan()
    for name in sorted(subfolders):
        if name in SPECIAL_FOLDERS:
            scan.special.append(name)
        elif len(name) > 1 and name.startswith("0"):
            scan.leading_zeros.append(name)
        else:
            match = _STOLL_PREFIX.match(name)
            number = int(match.group()) if match else None
            if number is None or abs(number) > _INT64_MAX:
                scan.not_numeric.append(name)
            else:
                scan.versions.append(VersionFolder(name, number))
    return scan


@dataclass(frozen=True)
class Selection:
    """The versions a policy selects, and `specific` versions with no folder."""

    versions: tuple[int, ...]
    missing_specific: tuple[int, ...] = ()


def select_versions(config: ModelConfig, available: Iterable[int]) -> Selection:
    """Apply `version_policy` (default: latest 1) to the available version numbers."""
    present = sorted(set(available))
    policy = config.version_policy
    which = policy.WhichOneof("policy_choice") if config.HasField("version_policy") else None
    if which == "all":
        return Selection(tuple(present))
    if which == "specific":
        wanted = list(policy.specific.versions)
        return Selection(
            tuple(v for v in present if v in wanted),
            tuple(v for v in wanted if v not in present),
        )
    count = policy.latest.num_versions if which == "latest" else 1
    return Selection(tuple(present[-count:]) if count > 0 else ())
