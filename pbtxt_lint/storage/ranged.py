"""A remote object read through ranged GETs, as a buffer (like an mmap) or a file.

The readers of model files walk a buffer: `buf[i]`, `buf[a:b]`, `len(buf)`. A local file
gives them an mmap, whose pages the kernel loads where the walker looks; a remote object
gives them a `RangedBuffer`, which fetches the ranges the walker touches and keeps them
in a cache of bounded size. A walker that hops over a tensor's weights (a protobuf
length-delimited field) fetches a small block where it lands; one that reads forward
(a graph's nodes) gets ever larger blocks, so long runs take few requests.
"""

from __future__ import annotations

import bisect
import io
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, SupportsIndex, overload

FIRST_BLOCK = 64 * 1024
"""The first read of an object: its header and, for most models, the whole graph."""
HOP_BLOCK = 8 * 1024
"""A read that lands away from what was read before (after a skipped field)."""
MAX_BLOCK = 4 * 1024 * 1024
"""Forward reads double their block up to this."""
CACHE_BYTES = 64 * 1024 * 1024
"""What one open object keeps at most; the least recently used blocks go first."""

Fetch = Callable[[int, int], bytes]
"""(start, end) -> the object's bytes in [start, end)."""


class RangedBuffer:
    """A read-only, bounds-checked byte buffer over `fetch`, for objects of `size` bytes."""

    def __init__(self, fetch: Fetch, size: int, *, cache_bytes: int = CACHE_BYTES) -> None:
        self._fetch = fetch
        self._size = size
        self._cache_bytes = cache_bytes
        self._blocks: OrderedDict[int, bytes] = OrderedDict()  # start -> data, LRU order
        self._starts: list[int] = []  # sorted starts of the cached blocks
        self._held = 0
        self._last_start = -1
        self._last: bytes = b""
        self._next_forward = 0  # where a forward read would continue
        self._forward_block = FIRST_BLOCK
        self.fetched = 0
        """Bytes fetched so far (a block evicted and fetched again counts twice)."""
        self.requests = 0

    def __len__(self) -> int:
        return self._size

    def __enter__(self) -> RangedBuffer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._blocks.clear()
        self._starts.clear()
        self._held = 0
        self._last = b""
        self._last_start = -1

    @overload
    def __getitem__(self, key: SupportsIndex) -> int: ...

    @overload
    def __getitem__(self, key: slice) -> bytes: ...

    def __getitem__(self, key: SupportsIndex | slice) -> int | bytes:
        if isinstance(key, slice):
            start, stop, step = key.indices(self._size)
            if step != 1:
                raise ValueError("RangedBuffer slices have no step")
            return self.read(start, stop) if stop > start else b""
        index = key.__index__()
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError("index out of range")
        offset = index - self._last_start
        if 0 <= offset < len(self._last):
            return self._last[offset]
        return self.read(index, index + 1)[0]

    def find(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        """Like mmap.find (used on small heads only)."""
        stop = self._size if end is None else min(end, self._size)
        return self.read(start, stop).find(sub) + start if stop > start else -1

    def read(self, start: int, stop: int) -> bytes:
        """The bytes in [start, stop), fetched where not cached."""
        pieces: list[bytes] = []
        position = start
        while position < stop:
            block_start, data = self._block_at(position)
            offset = position - block_start
            take = min(stop - position, len(data) - offset)
            pieces.append(data[offset : offset + take])
            position += take
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def _block_at(self, position: int) -> tuple[int, bytes]:
        offset = position - self._last_start
        if 0 <= offset < len(self._last):
            return self._last_start, self._last
        index = bisect.bisect_right(self._starts, position) - 1
        if index >= 0:
            block_start = self._starts[index]
            data = self._blocks[block_start]
            if position < block_start + len(data):
                self._blocks.move_to_end(block_start)
                self._last_start, self._last = block_start, data
                return block_start, data
        return self._load(position, index)

    def _load(self, position: int, index: int) -> tuple[int, bytes]:
        if not self._blocks:
            length = self._forward_block
        elif position == self._next_forward:
            self._forward_block = min(self._forward_block * 2, MAX_BLOCK)
            length = self._forward_block
        else:
            self._forward_block = FIRST_BLOCK
            length = HOP_BLOCK
        end = min(position + length, self._size)
        following = self._starts[index + 1] if index + 1 < len(self._starts) else None
        if following is not None:
            end = min(end, following)  # never fetch what is cached already
        data = self._fetch(position, end)
        if len(data) != end - position:
            raise OSError(
                5, f"the service returned {len(data):,} bytes for a range of {end - position:,}"
            )
        self.fetched += len(data)
        self.requests += 1
        self._next_forward = end
        self._blocks[position] = data
        bisect.insort(self._starts, position)
        self._held += len(data)
        while self._held > self._cache_bytes and len(self._blocks) > 1:
            old_start, old = self._blocks.popitem(last=False)
            self._starts.remove(old_start)
            self._held -= len(old)
        self._last_start, self._last = position, data
        return position, data


class RangedFile(io.RawIOBase):
    """A seekable read-only file over a RangedBuffer (a zip archive's reader seeks)."""

    def __init__(self, buffer: RangedBuffer, name: str) -> None:
        super().__init__()
        self._buffer = buffer
        self._position = 0
        self.name = name

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            position = offset
        elif whence == io.SEEK_CUR:
            position = self._position + offset
        elif whence == io.SEEK_END:
            position = len(self._buffer) + offset
        else:
            raise ValueError(f"invalid whence {whence}")
        if position < 0:
            raise OSError(22, "negative seek position")
        self._position = position
        return position

    def readinto(self, target: Any) -> int:
        view = memoryview(target).cast("B")
        stop = min(self._position + len(view), len(self._buffer))
        if stop <= self._position:
            return 0
        data = self._buffer.read(self._position, stop)
        view[: len(data)] = data
        self._position = stop
        return len(data)

    def read(self, size: int = -1) -> bytes:
        stop = len(self._buffer) if size is None or size < 0 else self._position + size
        stop = min(stop, len(self._buffer))
        if stop <= self._position:
            return b""
        data = self._buffer.read(self._position, stop)
        self._position = stop
        return data

    def readall(self) -> bytes:
        return self.read(-1)

    def close(self) -> None:
        self._buffer.close()
        super().close()
