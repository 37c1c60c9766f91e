"""PATH arguments that may be cloud URLs (`s3://`, `gs://`, `as://`).

A URL becomes an `ObjectPath` whose store is registered for the run; parsing it needs
no cloud library, reading it needs the cloud's extra, and a missing extra or a URL
Triton would not accept is a usage error naming the fix. Commands that write files
(`fmt`, `check --fix`, `init`) take local paths only and say so.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from pbtxt_lint.storage.urls import is_url

LOCAL_ONLY = (
    "{command} works on local files only: it writes files, and pbtxt-lint never writes "
    "to a bucket; run it on a checkout of the repository"
)


class RepositoryPath(click.ParamType):  # type: ignore[type-arg,unused-ignore]
    """A local path (checked as `local` says) or, where `remote`, a cloud URL."""

    name = "path"

    def __init__(
        self, local: click.Path | None = None, *, remote: bool = True, command: str = ""
    ) -> None:
        self.local = local
        self.remote = remote
        self.command = command

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        if isinstance(value, Path):
            return value
        text = str(value)
        if is_url(text):
            if not self.remote:
                self.fail(f"{text}: " + LOCAL_ONLY.format(command=self.command), param, ctx)
            # Deferred: only a URL needs the storage layer's cloud side.
            from pbtxt_lint.storage.remote import MissingExtra, as_path
            from pbtxt_lint.storage.urls import UrlError

            try:
                return as_path(text)
            except (UrlError, MissingExtra) as error:
                self.fail(str(error), param, ctx)
        if self.local is not None:
            return Path(os.fsdecode(self.local.convert(text, param, ctx)))
        return Path(text)
