"""`python -m pbtxt_lint` runs the CLI."""

from pbtxt_lint.cli import main

main()
