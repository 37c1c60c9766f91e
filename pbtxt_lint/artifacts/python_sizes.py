"""What the value flow of a model.py (`python_flow`) knows of each axis of an array.

The Python backend sends the array handed to `pb_utils.Tensor(name, array)` with the
shape it has (python_backend `pb_stub_utils.cc`; server#3989: no output validation
after inference), so the size of each axis is what the code made it. A `Size` says
what that is, as a linear sum `offset + sum(coefficient * symbol)`:

- no symbols: a constant the code fixes (`MAX_LENGTH = 256`, a literal, a fixed dim
  of an input's config);
- symbols that start with "r:": a size that depends on the request, derived from an
  input's variable dims (`r:X:1`), its batch size (`r:batch`) or its values;
- symbols that start with "c:": a constant whose value the flow does not know
  (`w * 0.5` of a constant `w`).

Sums and differences stay exact, so `len(ids) + (256 - len(ids))` is 256; anything
else that involves a symbol (`min`, `round`, `//`, a product of two symbols) is a new
opaque symbol named after the operation and its operands. A size the flow cannot
follow is None, and None never produces a finding.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

BATCH = "r:batch"
"""The symbol of the request's batch size (axis 0 of every input of a batching model)."""
_LIMIT = 1 << 40
"""Sizes beyond this are not followed (a constant that large is no tensor's axis)."""
_NAME_LIMIT = 120
"""Longer symbol names are replaced by a digest."""
_TERMS_LIMIT = 8
"""Sums of more symbols are not followed."""


@dataclass(frozen=True)
class Size:
    """One axis of an array, or an integer the code computes."""

    offset: int = 0
    terms: tuple[tuple[str, int], ...] = ()
    """(symbol, coefficient), sorted by symbol; no coefficient is 0."""
    why: str = ""
    """Where it comes from, for messages: 'MAX_LENGTH = 256 (line 5)'."""

    @property
    def constant(self) -> int | None:
        """The value, when the code fixes it to a known constant."""
        return None if self.terms else self.offset

    @property
    def from_request(self) -> bool:
        """Whether it depends on the request (its data, shape or batch size)."""
        return any(symbol.startswith("r:") for symbol, _ in self.terms)

    @property
    def is_batch(self) -> bool:
        """Whether it is the request's batch size itself."""
        return self.offset == 0 and self.terms == ((BATCH, 1),)

    @property
    def key(self) -> str:
        """The value as text (what opaque symbols are named after)."""
        parts = [f"{c}*{s}" for s, c in self.terms]
        return "+".join([*parts, str(self.offset)]) if parts else str(self.offset)


Dims = tuple["Size | None", ...]


def fits(value: int) -> bool:
    """A size small enough to compute with (and to print: a hex literal can be thousands
    of digits long)."""
    return abs(value) < _LIMIT


def constant(value: int, why: str) -> Size | None:
    return Size(value, (), why) if fits(value) else None


def symbol(name: str, why: str) -> Size:
    """A size known only by name: `r:...` for one the request decides, `c:...` else."""
    return Size(0, ((name, 1),), why)


def opaque(operation: str, operands: Sequence[Size | None], why: str) -> Size | None:
    """The result of a non-linear operation on sizes: a constant when all operands are
    known constants is computed by the caller; otherwise a new symbol that depends on
    the request when any operand does. None when an operand is unknown."""
    if any(o is None for o in operands):
        return None
    known = [o for o in operands if o is not None]
    kind = "r" if any(o.from_request for o in known) else "c"
    name = f"{operation}({','.join(o.key for o in known)})"
    if len(name) > _NAME_LIMIT:  # nested operations: a digest keeps names short
        name = f"{operation}#{hashlib.blake2s(name.encode(), digest_size=8).hexdigest()}"
    return symbol(f"{kind}:{name}", why)


def add(a: Size | None, b: Size | None, why: str, sign: int = 1) -> Size | None:
    """a + b (a - b with sign -1)."""
    if a is None or b is None:
        return None
    terms = dict(a.terms)
    for name, coefficient in b.terms:
        terms[name] = terms.get(name, 0) + sign * coefficient
    offset = a.offset + sign * b.offset
    if abs(offset) >= _LIMIT or len(terms) > _TERMS_LIMIT:
        return None
    return Size(offset, tuple(sorted((s, c) for s, c in terms.items() if c)), why)


def multiply(a: Size | None, b: Size | None, why: str) -> Size | None:
    if a is None or b is None:
        return None
    if a.constant is not None and b.constant is not None:
        return constant(a.constant * b.constant, why)
    factor, other = (a.constant, b) if a.constant is not None else (b.constant, a)
    if factor is None:
        return opaque("mul", (a, b), why)
    if factor == 0:
        return Size(0, (), why)
    if abs(factor) >= _LIMIT or abs(other.offset * factor) >= _LIMIT:
        return None
    return Size(other.offset * factor, tuple((s, c * factor) for s, c in other.terms), why)


def integer_operation(name: str, a: Size | None, b: Size | None, why: str) -> Size | None:
    """`//`, `%` and `**` of sizes."""
    if a is None or b is None:
        return None
    x, y = a.constant, b.constant
    if x is not None and y is not None:
        if name in ("floordiv", "mod") and y == 0:
            return None
        if name == "floordiv":
            return constant(x // y, why)
        if name == "mod":
            return constant(x % y, why)
        if name == "pow" and 0 <= y <= 64 and abs(x) < 1 << 20:
            return constant(x**y, why)
        return None
    return opaque(name, (a, b), why)


def extreme(name: str, values: Sequence[Size | None], why: str) -> Size | None:
    """min(...) or max(...) of sizes."""
    if not values or any(v is None for v in values):
        return None
    known = [v for v in values if v is not None]
    constants = [v.constant for v in known]
    if all(c is not None for c in constants):
        chosen = min if name == "min" else max
        return constant(chosen(c for c in constants if c is not None), why)
    return opaque(name, known, why)


def join(a: Size | None, b: Size | None) -> Size | None:
    """The size after two paths that give `a` and `b`: kept only when they agree."""
    if a is None or b is None:
        return None
    return a if (a.offset, a.terms) == (b.offset, b.terms) else None


def join_dims(a: Dims | None, b: Dims | None) -> Dims | None:
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(join(x, y) for x, y in zip(a, b, strict=True))


def sliced(
    size: Size | None,
    lower: Size | None,
    upper: Size | None,
    step: Size | None,
    given: tuple[bool, bool, bool],
    why: str,
) -> Size | None:
    """The length of `seq[lower:upper:step]` for a `seq` of `size` items; `given` says
    which bounds are written (an unwritten one is None too)."""
    has_lower, has_upper, has_step = given
    if not (has_lower or has_upper or has_step):
        return size
    if (has_lower and lower is None) or (has_upper and upper is None):
        return None
    if (has_step and step is None) or size is None:
        return None
    values = (size.constant, lower.constant if lower else None, upper.constant if upper else None)
    stride = step.constant if step is not None else 1
    if values[0] is not None and (lower is None or values[1] is not None) and (
        upper is None or values[2] is not None
    ) and stride:  # fmt: skip
        return constant(len(range(*slice(values[1], values[2], stride).indices(values[0]))), why)
    parts = [p for p in (size, lower, upper, step) if p is not None]
    return opaque("slice", parts, why)


def broadcast(a: Dims | None, b: Dims | None) -> Dims | None:
    """The dims of an elementwise operation of arrays with dims `a` and `b` (NumPy
    broadcasting, aligned on the last axis)."""
    if a is None or b is None:
        return None
    length = max(len(a), len(b))
    left = (Size(1),) * (length - len(a)) + tuple(a)
    right = (Size(1),) * (length - len(b)) + tuple(b)
    result: list[Size | None] = []
    for x, y in zip(left, right, strict=True):
        if x is not None and x.constant == 1:
            result.append(y)
        elif y is not None and y.constant == 1:
            result.append(x)
        elif x is not None and y is not None and (x.offset, x.terms) == (y.offset, y.terms):
            result.append(x)
        else:
            result.append(None)  # one of them unknown, or NumPy raises
    return tuple(result)


def permuted(dims: Dims | None, axes: Sequence[int | None] | None) -> Dims | None:
    """dims after `transpose(axes)` (reversed without axes)."""
    if dims is None:
        return None
    if not axes:
        return tuple(reversed(dims))
    if None in axes or len(axes) != len(dims):
        return None
    normal = [a + len(dims) if a is not None and a < 0 else a for a in axes]
    if sorted(n for n in normal if n is not None) != list(range(len(dims))):
        return None
    return tuple(dims[a] for a in normal if a is not None)


def product(dims: Iterable[Size | None]) -> int | None:
    total = 1
    for size in dims:
        if size is None or size.constant is None:
            return None
        total *= size.constant
    return total


def known(dims: Dims | None) -> bool:
    """Whether any axis of `dims` is known at all."""
    return dims is not None and any(d is not None for d in dims)
