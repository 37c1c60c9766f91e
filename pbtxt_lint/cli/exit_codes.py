"""Exit codes shared by every command: 0 no errors, 1 errors found, 2 usage/internal."""

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2
