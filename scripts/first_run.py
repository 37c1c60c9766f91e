"""What a newcomer sees: the default text output of `pbtxt-lint check` on public model
repositories, how much of it is info, and how much of it is wrong.

    .venv/bin/python scripts/first_run.py --corpus /tmp/first-run
    .venv/bin/python scripts/first_run.py --corpus DIR --git-dirs '/mirror/{owner}+{name}/repo'

``tests/first_run/MANIFEST.tsv`` lists the model repositories: a public GitHub
repository, a commit, and the folder there that holds the models. Each is extracted once
into the corpus folder as ``<owner>__<name>/<folder>`` (``git archive`` of that folder at
that commit, from ``--git-dirs`` or from a clone the script makes in the corpus folder),
then checked as a newcomer would: ``pbtxt-lint check <folder>`` and nothing else, the
text output as piped. Per repository and in total the script counts the lines printed,
the findings by severity, the lines that belong to info findings (headline, code frame,
hint), and the findings that ``tests/first_run/WRONG.tsv`` records as wrong (a review
by hand: ``<corpus path>[:line]``, code, why). ``--pbtxt-lint CMD`` measures another
installation (an older release, say), ``--check-args "--min-severity info"`` another
way of running it; ``--show`` prints every finding line.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "tests" / "first_run" / "MANIFEST.tsv"
WRONG = ROOT / "tests" / "first_run" / "WRONG.tsv"
COLUMN = re.compile(r"(:\d+):\d+$")
SEVERITIES = ("error", "warning", "info")
HEADLINE = re.compile(r"^(?P<where>\S.*?): (?P<severity>error|warning|info) (?P<code>PL\d{3}) ")


@dataclass(frozen=True)
class Source:
    repository: str  # owner/name on GitHub
    commit: str
    folder: str  # the model repository inside it

    @property
    def local(self) -> str:
        return f"{self.repository.replace('/', '__')}/{self.folder}"


@dataclass
class Figures:
    lines: int = 0
    findings: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SEVERITIES, 0))
    info_lines: int = 0
    wrong: int = 0
    shown: list[str] = field(default_factory=list)

    def add(self, other: Figures) -> None:
        self.lines += other.lines
        self.info_lines += other.info_lines
        self.wrong += other.wrong
        for severity, count in other.findings.items():
            self.findings[severity] += count


def read_manifest(path: Path) -> list[Source]:
    rows = [line.split("\t") for line in path.read_text().splitlines()[1:] if line.strip()]
    return [Source(*row[:3]) for row in rows]


def read_wrong(path: Path) -> set[tuple[str, str]]:
    """(corpus path[:line], code) of every finding the review judged wrong."""
    if not path.exists():
        return set()
    rows = [line.split("\t") for line in path.read_text().splitlines()[1:] if line.strip()]
    return {(row[0], row[1]) for row in rows}


def extract(source: Source, corpus: Path, git_dirs: str | None) -> Path:
    """The source's folder in the corpus, extracted on first use."""
    target = corpus / source.local
    if target.is_dir():
        return target
    owner, name = source.repository.split("/")
    if git_dirs:
        git_dir = Path(git_dirs.format(owner=owner, name=name))
    else:
        git_dir = corpus / ".git" / f"{owner}__{name}"
        if not git_dir.exists():
            url = f"https://github.com/{source.repository}"
            subprocess.run(["git", "clone", "--quiet", "--bare", url, str(git_dir)], check=True)
    base = corpus / source.local.split("/")[0]
    base.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", source.commit, source.folder],
        check=True,
        capture_output=True,
    )
    subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
    return target


def measure(
    command: list[str],
    folder: Path,
    corpus: Path,
    wrong: set[tuple[str, str]],
    extra: list[str],
) -> Figures:
    """Run the check as a newcomer would and count what it prints."""
    env = {**os.environ, "NO_COLOR": "1", "PBTXT_LINT_NO_CACHE": "1"}
    env.pop("GITHUB_ACTIONS", None)
    run = subprocess.run(
        [*command, "check", str(folder.relative_to(corpus)), *extra],
        cwd=corpus,
        env=env,
        capture_output=True,
        text=True,
    )
    figures = Figures()
    lines = run.stdout.splitlines()
    figures.lines = len(lines)
    current: str | None = None
    for line in lines:
        match = HEADLINE.match(line)
        if match:
            current = match["severity"]
            figures.findings[current] += 1
            figures.shown.append(line)
            where = COLUMN.sub(r"\1", match["where"])  # path:line, or a path alone
            if (where, match["code"]) in wrong:
                figures.wrong += 1
        elif not line.startswith(" "):
            current = None
        if current == "info":
            figures.info_lines += 1
    return figures


def share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="where sources are extracted")
    parser.add_argument("--git-dirs", help="git folders to read, e.g. '/m/{owner}+{name}/repo'")
    parser.add_argument("--pbtxt-lint", default=f"{sys.executable} -m pbtxt_lint")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--show", action="store_true", help="print every finding line")
    parser.add_argument("--check-args", default="", help="more check options, quoted as one")
    args = parser.parse_args(argv)
    corpus: Path = args.corpus.resolve()
    corpus.mkdir(parents=True, exist_ok=True)
    command = shlex.split(args.pbtxt_lint)
    wrong = read_wrong(WRONG)
    total = Figures()
    print(f"{'repository':58} {'lines':>6} {'err':>4} {'warn':>4} {'info':>4} {'wrong':>5}")
    for source in read_manifest(args.manifest):
        folder = extract(source, corpus, args.git_dirs)
        figures = measure(command, folder, corpus, wrong, shlex.split(args.check_args))
        total.add(figures)
        counts = " ".join(f"{figures.findings[s]:>4}" for s in SEVERITIES)
        print(f"{source.local[:58]:58} {figures.lines:>6} {counts} {figures.wrong:>5}")
        if args.show and figures.shown:
            print("\n".join(f"    {line}" for line in figures.shown))
    findings = sum(total.findings.values())
    counts = " ".join(f"{total.findings[s]:>4}" for s in SEVERITIES)
    print(f"{'total':58} {total.lines:>6} {counts} {total.wrong:>5}")
    print(
        f"lines printed: {total.lines}; of them about info findings: {total.info_lines} "
        f"({share(total.info_lines, total.lines)}); findings shown: {findings}, info "
        f"{total.findings['info']} ({share(total.findings['info'], findings)}), wrong "
        f"{total.wrong} ({share(total.wrong, findings)})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
