"""Fill tensorrtllm_backend's published inflight_batcher_llm repository as its README does.

    .venv/bin/python scripts/trtllm_sample.py CHECKOUT OUT

CHECKOUT is a tensorrtllm_backend checkout (any release that still holds
``all_models/inflight_batcher_llm`` and ``README.md``, e.g. ``git archive v0.19.0``).
The README's "Modify the Model Configuration" section sets shell variables
(``TRITON_MAX_BATCH_SIZE=4`` ...) and runs ``fill_template.py -i <model>/config.pbtxt
key:value,...`` once per model; this script does the same substitution
(``string.Template.safe_substitute`` with fill_template's own defaults
``max_queue_size: 0`` and ``max_queue_delay_microseconds: 0``) on a copy in OUT, without
running anything from the checkout. Then ``pbtxt-lint check OUT`` shows what the
official sample, filled as documented, gets (issue 27: "the official samples stay
quiet where they are right"). The engine and tokenizer folders the README names are
not created: they live on the serving host.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from string import Template

_ASSIGNMENT = re.compile(r"^([A-Z_][A-Z0-9_]*)=(\S*)\s*$")
_FILL = re.compile(
    r"(?:fill_template\.py|\$\{FILL_TEMPLATE_SCRIPT\})\s+-i\s+\S*?([A-Za-z0-9_]+)/config\.pbtxt\s+(\S+)"
)
DEFAULTS = {"max_queue_size": "0", "max_queue_delay_microseconds": "0"}
"""What fill_template.py substitutes when its command line does not say."""


def readme_commands(readme: str) -> dict[str, dict[str, str]]:
    """Model folder -> the substitutions the README's first fill_template block makes."""
    variables: dict[str, str] = {}
    commands: dict[str, dict[str, str]] = {}
    for line in readme.splitlines():
        line = line.strip()
        if match := _ASSIGNMENT.match(line):
            variables[match.group(1)] = match.group(2)
            continue
        match = _FILL.search(line)
        if match is None or match.group(1) in commands:
            continue
        text = Template(match.group(2)).safe_substitute(variables)
        pairs = dict(item.split(":", 1) for item in text.split(",") if ":" in item)
        commands[match.group(1)] = {**DEFAULTS, **pairs}
    return commands


def fill(checkout: Path, out: Path) -> dict[str, dict[str, str]]:
    """Copy the published models to `out` and fill each config as the README does."""
    source = checkout / "all_models" / "inflight_batcher_llm"
    commands = readme_commands((checkout / "README.md").read_text(encoding="utf-8"))
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(source, out)
    for model, substitutions in commands.items():
        config = out / model / "config.pbtxt"
        if config.is_file():
            text = Template(config.read_text(encoding="utf-8")).safe_substitute(substitutions)
            config.write_text(text, encoding="utf-8")
    return commands


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    for model, substitutions in fill(Path(argv[0]), Path(argv[1])).items():
        print(f"{model}: {','.join(f'{k}:{v}' for k, v in substitutions.items())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
