"""What a cloud service can make a run do, bounded: time, listings, and bytes read.

A service (or anything answering on its endpoint) can say a listing goes on forever,
ignore a Range header and send a whole object, stream a body without end, or accept
a connection and never answer. So:

- every request has a deadline (REQUEST_SECONDS, a paginated listing LISTING_SECONDS),
  and the whole run at most RUN_SECONDS of them: the request that outlives its
  deadline is cancelled, and the store then fails every later request at once, as it
  does when the endpoint stops answering (`remote.Store`). A run against an endpoint
  that stalls therefore ends about one deadline after the stall;
- an S3 listing stops at MAX_PAGES pages or MAX_NAMES names (MAX_LISTED in a run),
  whatever its pages say about more to come;
- an S3 ranged read takes at most the bytes it asked for off the wire, and refuses an
  answer that ignored the Range from a start past 0 (its bytes are not the ones asked
  for); other clouds' reads are checked for their length after the fact.

The deadlines and the page cap can be lowered (never raised) through the environment
(PBTXT_LINT_REMOTE_TIMEOUT, PBTXT_LINT_REMOTE_BUDGET, PBTXT_LINT_REMOTE_MAX_PAGES), for
tests and for CI jobs that would rather fail fast.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


def _lowered(variable: str, default: float) -> float:
    """`default`, or the environment's lower value for it (never higher, never 0)."""
    try:
        value = float(os.environ.get(variable, "") or default)
    except ValueError:
        return default
    return min(max(value, 0.1), default)


REQUEST_SECONDS = _lowered("PBTXT_LINT_REMOTE_TIMEOUT", 60)
"""The most one request may take, answer included (PBTXT_LINT_REMOTE_TIMEOUT lowers it)."""
LISTING_SECONDS = 2 * REQUEST_SECONDS
"""The most a listing may take, all its pages included."""
RUN_SECONDS = _lowered("PBTXT_LINT_REMOTE_BUDGET", 600)
"""The most a run waits on one endpoint in all (PBTXT_LINT_REMOTE_BUDGET lowers it)."""
MAX_PAGES = int(_lowered("PBTXT_LINT_REMOTE_MAX_PAGES", 1_000))
"""Pages one S3 listing reads (a page holds up to 1,000 names; one model's folder, the
largest listing pbtxt-lint makes, holds a few dozen objects)."""
MAX_NAMES = 100_000
"""Names one S3 listing may return."""
MAX_LISTED = 1_000_000
"""Names the S3 listings of a run may return in all (10,000 models hold some 100,000)."""
_CHUNK = 1 << 20


class ListingTooLong(Exception):
    """A listing that went past MAX_PAGES or MAX_LISTED."""


class RangeIgnored(Exception):
    """A ranged read answered with other bytes than those asked for."""


def within(loop: Any, action: Callable[[], Awaitable[T]], seconds: float) -> T:
    """`action()` run on fsspec's event loop, cancelled after `seconds` (TimeoutError)."""
    from fsspec.asyn import sync  # deferred: a cloud library, loaded with the first URL
    from fsspec.exceptions import FSTimeoutError

    try:
        result: T = sync(loop, action, timeout=seconds)
    except FSTimeoutError:
        raise TimeoutError(f"no answer within {seconds:g} s") from None
    return result


class ListingBudget:
    """Counts the pages and names of each S3 listing and of the whole run, from inside
    the client, and raises ListingTooLong at the page that crosses a cap, so the
    paginator stops there whatever the page says about more to come."""

    def __init__(self) -> None:
        self.names = 0  # in the whole run
        self._listings: dict[object, list[int]] = {}  # listing -> [pages, names]
        self._lock = threading.Lock()

    def install(self, fs: Any) -> None:
        """Count every ListObjectsV2 page of the S3 file system `fs`'s client."""
        fs.connect()  # s3fs makes its client on first use; the hooks need it now
        events = fs.s3.meta.events
        events.register("before-call.s3.ListObjectsV2", self._request)
        events.register("after-call.s3.ListObjectsV2", self._page)

    def _request(self, params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        query = params.get("query_string") or {}
        listing = (params.get("url_path"), query.get("prefix"), query.get("delimiter"))
        context["pbtxt_lint_listing"] = listing
        if "continuation-token" not in query:  # the first page of a listing
            with self._lock:
                self._listings[listing] = [0, 0]

    def _page(
        self, parsed: dict[str, Any] | None = None, context: dict[str, Any] | None = None, **_: Any
    ) -> None:
        page = parsed or {}
        listed = len(page.get("Contents", ())) + len(page.get("CommonPrefixes", ()))
        with self._lock:
            self.names += listed
            counts = self._listings.setdefault((context or {}).get("pbtxt_lint_listing"), [0, 0])
            counts[0] += 1
            counts[1] += listed
            pages, names, total = counts[0], counts[1], self.names
        if pages > MAX_PAGES or names > MAX_NAMES or total > MAX_LISTED:
            raise ListingTooLong(
                f"the listing went on for {pages:,} pages and {names:,} names, each page "
                f"saying more follow; pbtxt-lint reads at most {MAX_PAGES:,} pages and "
                f"{MAX_NAMES:,} names of one listing, {MAX_LISTED:,} names in a run"
            )


async def fetch_s3(fs: Any, key: str, start: int, end: int) -> bytes:
    """The bytes [start, end) of the S3 object `bucket/key`, never more off the wire."""
    bucket, _, name = key.partition("/")
    response = await fs._call_s3(
        "get_object", Bucket=bucket, Key=name, Range=f"bytes={start}-{end - 1}"
    )
    body = response["Body"]
    try:
        if start > 0 and not response.get("ContentRange"):
            raise RangeIgnored(_ignored(start, end))
        chunks, wanted = [], end - start
        while wanted > 0:
            chunk = await body.read(min(wanted, _CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            wanted -= len(chunk)
        return b"".join(chunks)
    finally:
        body.close()  # unread bytes stay on the wire: the connection is dropped


async def fetch_other(fs: Any, key: str, start: int, end: int) -> bytes:
    """The bytes [start, end) of a GCS or Azure object, checked for their length."""
    data: bytes = await fs._cat_file(key, start=start, end=end)
    if len(data) > end - start:
        raise RangeIgnored(_ignored(start, end))
    return data


def _ignored(start: int, end: int) -> str:
    return (
        f"the service ignored the Range header (bytes {start}-{end - 1}) and sent other "
        "bytes than those asked for"
    )
