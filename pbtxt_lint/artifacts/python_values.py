"""The abstract values of the model.py flow (`python_flow`), and how two paths join.

`analyse_flow` never runs `execute`: every value it follows is an `Arr` (a NumPy
array's dtype, rank, whether axis 0 is still the request's batch axis, which input it
comes from), a `Py` (a Python scalar), a `Seq` (a list or tuple), an `Encoding` (what a
tokenizer returns) or a `Tag` (a value the checks know by role: the requests, an input
tensor, a dtype, an array's shape, ...). None is unknown, and an unknown never produces
a finding. An input's `as_numpy()` is the array the config describes (`input_array`
of its `InputFacts`). Where two paths meet (the branches of an `if`, a loop that may
not run), `join` keeps what both paths agree on and forgets the rest.

Each array also carries the size of each axis (`python_sizes`: a constant, a size the
request decides, or unknown), and each list the `pb_utils.Tensor`s it holds on every
path and on some path (`Sent`), which each error-free `pb_utils.InferenceResponse`
records (`ResponseValue`): what PL657-PL659 compare with the config and the ensemble
steps that read the outputs.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pbtxt_lint.artifacts import python_sizes as sz
from pbtxt_lint.artifacts.python_sizes import Dims, Size


@dataclass(frozen=True)
class InputFacts:
    """What the config says of one input, as `as_numpy()` shows it."""

    dtype: str | None
    rank: int | None
    """Batch axis included."""
    item_size: int | None
    """Elements per batch item (per request when the model does not batch); None when a
    dim is variable."""
    batched: bool
    dims: tuple[int, ...] | None = None
    """The config's dims (reshape.shape when given), batch axis excluded."""


@dataclass(frozen=True)
class Arr:
    """An abstract NumPy array."""

    dtype: str | None
    why: str = ""
    """How it got that dtype: 'np.argmax(...) returns int64 (line 13)'."""
    rank: int | None = None
    batch: bool | None = None
    """True: axis 0 is the request's batch axis; False: there is none; None: unknown."""
    source: str | None = None
    """The input it derives from."""
    size: int | None = None
    """Elements per batch item (batch True) or in all (batch False); None: unknown."""
    dropped: str = ""
    """The operation that removed the batch axis: 'logits[0] (line 17)'."""
    axis0: str = ""
    """An operation that treats axis 0 of an input without batch axis as a batch."""
    dims: Dims | None = None
    """The size of each axis (batch axis included), None when the rank is unknown."""

    def __post_init__(self) -> None:
        # every operation that changes the rank without computing dims forgets them
        if self.dims is not None and (self.rank != len(self.dims) or not sz.known(self.dims)):
            object.__setattr__(self, "dims", None)


class PyKind(enum.Enum):
    """The type of a Python scalar (`Py`)."""

    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    STR = "str"
    BYTES = "bytes"
    NONE = "none"


NUMBERS = frozenset({PyKind.INT, PyKind.FLOAT, PyKind.BOOL})
"""The kinds of Python number (a bool is an int in arithmetic)."""


@dataclass(frozen=True)
class Py:
    """A Python scalar."""

    kind: PyKind
    text: str = ""
    """A short string literal's value (a dtype may be named by one: "float32")."""
    size: Size | None = None
    """An int's (or integral float's) value; for a str or bytes, its length."""


@dataclass(frozen=True)
class Sent:
    """The `pb_utils.Tensor`s a list holds, by literal name, on every path that
    reaches a point (`must`) and on some path (`may`)."""

    must: frozenset[str] = frozenset()
    may: frozenset[str] = frozenset()
    unknown: bool = False
    """It may also hold a tensor the flow cannot name (a name that is not a literal, an
    item it does not follow, a tensor appended in a loop that may not run)."""

    def join(self, other: Sent) -> Sent:
        return Sent(self.must & other.must, self.may | other.may, self.unknown or other.unknown)

    def union(self, other: Sent) -> Sent:
        return Sent(self.must | other.must, self.may | other.may, self.unknown or other.unknown)


@dataclass(frozen=True)
class Seq:
    """A list or tuple whose items are `item` (joined)."""

    item: Value
    depth: int = 1
    items: int = -1
    """Its length when written out (a display); -1 otherwise."""
    ints: tuple[int, ...] | None = None
    """Its items, when all are integer literals (a literal shape)."""
    elements: tuple[Value, ...] | None = None
    """Its items one by one, when written out (`(len(x), 256)`, `image.shape[:2]`)."""
    length: Size | None = None
    """How many items it has, when known otherwise than by `items`."""
    sent: Sent | None = None
    """The output tensors it holds (None: not a list of tensors the flow follows)."""

    @property
    def size(self) -> Size | None:
        return sz.Size(self.items) if self.items >= 0 else self.length


class TagKind(enum.Enum):
    """The role of a value the checks know by role (`Tag`)."""

    SELF = "self"  # the model instance
    REQUESTS = "requests"  # execute's argument
    REQUEST = "request"  # one of them
    TENSOR = "tensor"  # get_input_tensor_by_name(request, name); `name` is the input
    REQUESTED = "requested"  # request.requested_output_names()
    SENDER = "sender"  # request.get_response_sender()
    RESPONSE = "response"  # pb_utils.InferenceResponse(...)
    OUTPUT_CONFIG = "output_config"  # get_output_config_by_name(config, name)
    OUTPUT_CONFIG_TYPE = "output_config_type"  # its ["data_type"]
    OUTPUT_TENSOR = "output_tensor"  # pb_utils.Tensor(name, ...); `name` is the output
    DTYPE = "dtype"  # a NumPy dtype; `name` is its name
    PYTYPE = "pytype"  # a Python type used as a dtype (int, float, ...); `name`
    NUMPY = "numpy"  # another attribute of NumPy; `name`
    SHAPE = "shape"  # array.shape; `ref` is the array
    DIM0 = "dim0"  # array.shape[0] or len(array); `ref` is the array


@dataclass(frozen=True)
class Tag:
    """A value the checks know by role: the requests, one request, an input tensor, a
    dtype, an output's config, an array's shape or first dim, ..."""

    kind: TagKind
    name: str = ""
    ref: Arr | None = None


@dataclass(frozen=True)
class Encoding:
    """What a Hugging Face tokenizer call returns: `input_ids`, `attention_mask` and
    `token_type_ids`, each [count, length]."""

    count: Size | None
    """How many texts it encoded."""
    length: Size | None
    """Tokens per text after padding and truncation."""
    arrays: bool
    """NumPy arrays (`return_tensors="np"`), else lists of lists."""
    single: bool = False
    """It encoded one string (lists are then one list of ids)."""


Value = Arr | Py | Seq | Tag | Encoding | None


@dataclass(frozen=True)
class OutputValue:
    """The value given to `pb_utils.Tensor(name, value)`."""

    name: str
    line: int
    column: int
    value: Arr | None


@dataclass(frozen=True)
class Reshape:
    """A batched array reshaped to a literal shape that holds exactly one item."""

    line: int
    source: str
    shape: tuple[int, ...]
    item_size: int


@dataclass(frozen=True)
class ResponseValue:
    """A `pb_utils.InferenceResponse(output_tensors)` without an error."""

    line: int
    column: int
    sent: Sent | None
    """What its output_tensors hold (None: a value the flow does not follow)."""
    fixed: bool = False
    """It sits in a branch of an `if` whose test reads no request data (a setting, an
    optional input's presence, a library's result): the same branch every time."""


@dataclass(frozen=True)
class Flow:
    outputs: tuple[OutputValue, ...] = ()
    reshapes: tuple[Reshape, ...] = ()
    complete: bool = True
    """False when the step budget ran out (the findings are then dropped)."""
    responses: tuple[ResponseValue, ...] = ()
    guarded: frozenset[str] = frozenset()
    """Output names the code adds under an `if` that reads no request data (the outputs
    the request asks for, an optional input's presence, a setting) or in a `try` body:
    when they are left out, it is by design."""


def join(a: Value, b: Value) -> Value:
    """What a value is after two paths that give `a` and `b`."""
    if a == b:
        return a
    if isinstance(a, Arr) and isinstance(b, Arr):
        return Arr(
            a.dtype if a.dtype == b.dtype else None,
            a.why if a.dtype == b.dtype else "",
            a.rank if a.rank == b.rank else None,
            a.batch if a.batch == b.batch else None,
            a.source if a.source == b.source else None,
            a.size if a.size == b.size else None,
            a.dropped if a.dropped == b.dropped else "",
            a.axis0 if a.axis0 == b.axis0 else "",
            sz.join_dims(a.dims, b.dims) if a.rank == b.rank else None,
        )
    if isinstance(a, Py) and isinstance(b, Py):
        size = sz.join(a.size, b.size)
        if a.kind == b.kind:
            return Py(a.kind, a.text if a.text == b.text else "", size)
        if a.kind in NUMBERS and b.kind in NUMBERS:
            wider = PyKind.FLOAT if PyKind.FLOAT in (a.kind, b.kind) else PyKind.INT
            return Py(wider, size=size)
        return None
    if isinstance(a, Seq) and isinstance(b, Seq):
        elements = None
        if a.elements is not None and b.elements is not None and len(a.elements) == len(b.elements):
            elements = tuple(join(x, y) for x, y in zip(a.elements, b.elements, strict=True))
        return Seq(
            join(a.item, b.item),
            a.depth if a.depth == b.depth else 1,
            elements=elements,
            length=sz.join(a.size, b.size),
            sent=a.sent.join(b.sent) if a.sent and b.sent else None,
        )
    if isinstance(a, Encoding) and isinstance(b, Encoding):
        same = a.arrays == b.arrays and a.single == b.single
        count, length = sz.join(a.count, b.count), sz.join(a.length, b.length)
        return Encoding(count, length, a.arrays, a.single) if same else None
    return None


def join_env(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    """The entries of two environments that differ, joined."""
    return {k: join(a.get(k), b.get(k)) for k in a.keys() | b.keys() if a.get(k) != b.get(k)}


def empty(value: Seq) -> bool:
    """A list written as `[]` (or `()`), whose items come later."""
    return value.items == 0


def size_of(value: Value) -> Size | None:
    """The value of an int (or integral float) the flow follows."""
    if isinstance(value, Py) and value.kind in (PyKind.INT, PyKind.FLOAT):
        return value.size
    if isinstance(value, Tag) and value.kind == TagKind.DIM0 and value.ref is not None:
        return value.ref.dims[0] if value.ref.dims else None
    return None


def from_request(value: Value) -> bool:
    """Whether a value is derived from the request's data."""
    if isinstance(value, Arr):
        return value.source is not None
    if isinstance(value, Tag) and value.kind == TagKind.DIM0 and value.ref is not None:
        return from_request(value.ref)
    size = value.size if isinstance(value, Py | Seq) else None
    return size is not None and size.from_request


def sent_by(value: Value) -> Sent:
    """What putting `value` in a list adds to the tensors it holds."""
    if isinstance(value, Tag) and value.kind == TagKind.OUTPUT_TENSOR and value.name:
        names = frozenset({value.name})
        return Sent(names, names)
    return Sent(unknown=True)


def length_of(value: Value) -> Size | None:
    """How many elements iterating `value` gives, when known."""
    if isinstance(value, Arr) and value.dims:
        return value.dims[0]
    return value.size if isinstance(value, Seq) else None


def seq_of(item: Value) -> Seq:
    """A list of `item`s (nested one level deeper when the items are lists)."""
    return Seq(item, item.depth + 1 if isinstance(item, Seq) else 1)


def constant(value: object, line: int) -> Value:
    """The value of a literal (`256`, `"float32"`, `None`) at `line`."""
    if value is None:
        return Py(PyKind.NONE)
    if isinstance(value, bool):
        return Py(PyKind.BOOL)
    if isinstance(value, int):  # a 0x literal of thousands of digits: Python cannot print it
        return Py(
            PyKind.INT,
            size=sz.constant(value, f"{value} (line {line})") if sz.fits(value) else None,
        )
    if isinstance(value, float):
        integral = value.is_integer() and abs(value) < 1 << 40
        size = sz.constant(int(value), f"{value} (line {line})") if integral else (
            sz.symbol(f"c:{value!r}", f"{value} (line {line})")
        )  # fmt: skip
        return Py(PyKind.FLOAT, size=size)
    if isinstance(value, str):
        return Py(PyKind.STR, value if len(value) <= 16 else "", sz.constant(len(value), ""))
    if isinstance(value, bytes):
        return Py(PyKind.BYTES, size=sz.constant(len(value), ""))
    return None


def unsized(value: Value) -> Value:
    """`value` without what it says about sizes."""
    if isinstance(value, Py):
        return replace(value, size=None)
    if isinstance(value, Arr):
        return replace(value, dims=None)
    if isinstance(value, Seq):
        return replace(value, elements=None, length=None)
    if isinstance(value, Encoding):
        return replace(value, count=None, length=None)
    return value


def with_dims(value: Value, dims: Dims | None) -> Value:
    """An array with its axes' sizes set (any other value as it is)."""
    return replace(value, dims=dims) if isinstance(value, Arr) else value


def as_int(value: Value) -> Value:
    """`len(array)` (a `Tag(TagKind.DIM0)`) as the int it is, for arithmetic."""
    if isinstance(value, Tag) and value.kind == TagKind.DIM0:
        return Py(PyKind.INT, size=size_of(value))
    return value


def input_array(inputs: Mapping[str, InputFacts], name: str, line: int) -> Value:
    """The array `as_numpy()` gives for input `name`, as the config describes it."""
    facts = inputs.get(name)
    if facts is None:
        return None
    dims: list[Size | None] = []
    if facts.batched:
        dims.append(sz.symbol(sz.BATCH, f'the batch size of input "{name}"'))
    for axis, dim in enumerate(facts.dims or ()):
        dims.append(
            Size(dim, (), f'input "{name}" dims {_dims_text(facts.dims or ())}')
            if dim >= 0
            else sz.symbol(
                f"r:{name}:{axis}", f'axis {axis + facts.batched} of input "{name}" (-1)'
            )
        )
    return Arr(
        facts.dtype,
        f'input "{name}" is {facts.dtype} (line {line})' if facts.dtype else "",
        facts.rank,
        facts.batched,
        name,
        facts.item_size,
        dims=tuple(dims) if facts.dims is not None else None,
    )


def _dims_text(dims: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in dims) + "]"
