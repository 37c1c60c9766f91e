"""Readers that extract a model artifact's I/O signature without executing or fully loading it.

Each reader returns a format-neutral :class:`~pbtxt_lint.artifacts.signature.Signature` so the
config cross-checks do not depend on any framework library.
"""
