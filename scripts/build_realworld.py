"""Rebuild the real-world corpus that scripts/realworld.py measures, from git mirrors.

    .venv/bin/python scripts/build_realworld.py MIRRORS CORPUS

``tests/realworld/MANIFEST.tsv`` names, for every model of the corpus, the public
repository, the config's path there, the commit it was read at and what else was
copied beside it (``copied:1/model.py,labels.txt``; ``version folder synthesized``
when the source had no version folder). MIRRORS holds one bare git directory per
repository, ``<owner>+<name>/repo`` (or ``repo/.git``), as the workplace's fetch tool
lays them out; nothing is downloaded here. The corpus stays outside this repository
(many sources carry no licence: see tests/realworld/README.md). Rows whose repository,
commit or file is missing are listed at the end and left out.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "tests" / "realworld" / "MANIFEST.tsv"


def git_dir(mirrors: Path, repository: str) -> Path | None:
    """The bare git directory of `repository` (owner/name) under `mirrors`, if fetched."""
    folder = mirrors / repository.replace("/", "+", 1) / "repo"
    for candidate in (folder / ".git", folder):
        if (candidate / "objects").is_dir():
            return candidate
    return None


def blob(repository_git: Path, commit: str, path: str) -> bytes | None:
    """The bytes of `path` at `commit`, None if either is missing."""
    done = subprocess.run(
        ["git", f"--git-dir={repository_git}", "show", f"{commit}:{path}"],
        capture_output=True,
        check=False,
    )
    return done.stdout if done.returncode == 0 else None


def copied_files(notes: str) -> list[str]:
    """The files the notes say were copied beside the config, relative to its folder."""
    for note in notes.split(";"):
        if note.startswith("copied:"):
            return [name for name in note.removeprefix("copied:").split(",") if name]
    return []


def build(mirrors: Path, corpus: Path) -> list[str]:
    """Write every model of the manifest under `corpus`; returns what could not be had."""
    missing: list[str] = []
    with MANIFEST.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    for row in rows:
        repository, path, commit = row["repository"], row["path"], row["commit"]
        source = git_dir(mirrors, repository)
        if source is None:
            missing.append(f"{repository}: not fetched")
            continue
        config = blob(source, commit, path)
        if config is None:
            missing.append(f"{repository}@{commit[:8]}:{path}: not in the mirror")
            continue
        model = corpus / row["corpus_model"]
        model.mkdir(parents=True, exist_ok=True)
        (model / "config.pbtxt").write_bytes(config)
        folder = PurePosixPath(path).parent
        for name in copied_files(row["notes"]):
            data = blob(source, commit, str(folder / name))
            if data is None:
                missing.append(f"{repository}@{commit[:8]}:{folder / name}: not in the mirror")
                continue
            target = model / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if "version folder synthesized" in row["notes"]:
            (model / "1").mkdir(exist_ok=True)
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirrors", type=Path, help="folder of <owner>+<name>/repo git mirrors")
    parser.add_argument("corpus", type=Path, help="where to write the corpus")
    args = parser.parse_args(argv)
    missing = build(args.mirrors, args.corpus)
    for line in missing:
        print(f"missing: {line}", file=sys.stderr)
    print(f"{len(missing)} files missing; corpus in {args.corpus}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
