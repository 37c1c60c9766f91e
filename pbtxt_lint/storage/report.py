"""What reading cloud repositories cost: requests, bytes, objects read whole.

The figures are the client's own count of what it asked for (one ranged GET, one
listing page request...), the same for every cloud; `--verbose` prints them and the
JSON report carries them, so a user can see that a 2 GiB model cost a few kilobytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pbtxt_lint.storage.remote import WHOLE_REPORT_BYTES, Store
from pbtxt_lint.storage.urls import ObjectPath, store_of


def _stores(roots: Sequence[Path]) -> dict[int, tuple[Store, list[Path]]]:
    found: dict[int, tuple[Store, list[Path]]] = {}
    for root in roots:
        if isinstance(root, ObjectPath):
            store = store_of(root)
            found.setdefault(id(store), (store, []))[1].append(root)
    return found


def summarize(roots: Sequence[Path]) -> list[dict[str, Any]]:
    """One entry per cloud endpoint read (JSON-ready)."""
    entries = []
    for store, repositories in _stores(roots).values():
        stats = store.stats
        opened = stats.objects
        whole = [
            {"url": store.url_of(key), "size": read.size}
            for key, read in sorted(opened.items())
            if read.whole and read.size >= WHOLE_REPORT_BYTES
        ]
        entries.append(
            {
                "service": store.service,
                "repositories": [str(r) for r in repositories],
                "credentials": store.credentials.source,
                "requests": stats.requests,
                "listings": stats.listings,
                "bytes_read": stats.bytes,
                "objects_opened": len(opened),
                "bytes_in_objects_opened": sum(read.size for read in opened.values()),
                "read_whole": whole,
            }
        )
    return entries


def lost_connections(roots: Sequence[Path]) -> list[tuple[Path, str]]:
    """A repository problem for each endpoint that stopped answering during the run."""
    problems = []
    for store, repositories in _stores(roots).values():
        if store.stats.lost_connection:
            problems.append(
                (
                    repositories[0],
                    f"{store.stats.lost_connection}; the models read after that are "
                    "reported unreadable, and the run is incomplete",
                )
            )
    return problems


def describe(entry: dict[str, Any]) -> list[str]:
    """--verbose lines for one summary entry."""
    total = entry["bytes_in_objects_opened"]
    share = f" ({entry['bytes_read'] / total:.2%} of them)" if total else ""
    lines = [
        f"{', '.join(entry['repositories'])} ({entry['service']}, credentials from "
        f"{entry['credentials']}): {entry['requests']:,} requests ({entry['listings']:,} "
        f"listings), {entry['bytes_read']:,} bytes read; {entry['objects_opened']:,} "
        f"objects opened hold {total:,} bytes{share}"
    ]
    for whole in entry["read_whole"]:
        lines.append(
            f"  read whole (the reader needs every byte): {whole['url']} ({whole['size']:,} bytes)"
        )
    return lines
