"""The one writer of config text: what pbtxt-lint writes, `pbtxt-lint fmt` keeps.

Every config pbtxt-lint produces comes from here: `init` and `complete` write a
ModelConfig message (`write_config`), `convert --to pbtxt` writes a message (from JSON
or protobuf's binary encoding) or rewrites config text with its comments
(`write_text`), and `check --fix` leaves a file that was in `fmt` layout in it
(`keep_layout`).

The writers agree with `fmt` by construction: the last step of each is
`format.format_text`, and `fmt` leaves that function's output as it is (formatting is
idempotent), so `pbtxt-lint fmt --check` never has anything to say about a file
pbtxt-lint wrote.

Fields come in the conventional order of Triton's examples and real configs (what a
model is, its tensors, how it is scheduled, its tuning, its extras):

```
name, platform, backend, runtime, default_model_filename, cc_model_filenames,
max_batch_size, version_policy, model_transaction_policy,
input, output, batch_input, batch_output,
dynamic_batching | sequence_batching | ensemble_scheduling,
instance_group, optimization, parameters, model_warmup, response_cache,
model_repository_agents, model_operations, metric_tags, model_metrics
```

Inside a block, fields follow their declaration order in model_config.proto, which is
how Triton's examples write them, with two exceptions real configs agree on: an
instance group starts `count`, `kind`, `gpus`, and a sequence batcher starts with
`max_sequence_idle_microseconds`. Repeated fields keep the order of their elements, and
comments travel with the field they are written above or beside.
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR, ModelConfig
from pbtxt_lint.textproto.binder import message_type
from pbtxt_lint.textproto.format import FormatError, format_text
from pbtxt_lint.textproto.parse import parse_config
from pbtxt_lint.textproto.tree import Block, Document, Field, ListValue

TOP_LEVEL_ORDER = (
    "name",
    "platform",
    "backend",
    "runtime",
    "default_model_filename",
    "cc_model_filenames",
    "max_batch_size",
    "version_policy",
    "model_transaction_policy",
    "input",
    "output",
    "batch_input",
    "batch_output",
    "dynamic_batching",
    "sequence_batching",
    "ensemble_scheduling",
    "instance_group",
    "optimization",
    "parameters",
    "model_warmup",
    "response_cache",
    "model_repository_agents",
    "model_operations",
    "metric_tags",
    "model_metrics",
)
"""Every field of ModelConfig, in the order the writer puts them (tests check it is
complete; a field added to the schema and not listed here goes last)."""

_LEADING: dict[str, tuple[str, ...]] = {
    "inference.ModelConfig": TOP_LEVEL_ORDER,
    "inference.ModelInstanceGroup": ("name", "count", "kind", "gpus"),
    "inference.ModelSequenceBatching": ("max_sequence_idle_microseconds",),
}
_RANKS: dict[str, dict[str, int]] = {}


def field_ranks(descriptor: Descriptor) -> dict[str, int]:
    """Position of each field of a message type in the written order."""
    ranks = _RANKS.get(descriptor.full_name)
    if ranks is None:
        leading = _LEADING.get(descriptor.full_name, ())
        rest = [fd.name for fd in descriptor.fields if fd.name not in leading]
        ranks = {name: index for index, name in enumerate([*leading, *rest])}
        _RANKS[descriptor.full_name] = ranks
    return ranks


def write_config(config: ModelConfig, header: Sequence[str] = ()) -> str:
    """A ModelConfig as config.pbtxt text, after `header` (comment lines, `# ...`).

    Values are spelled as protobuf's printer spells them, which Triton's C++ parser
    reads; the result is parsed back and must be `config`. The header stays first, a
    blank line apart from the fields.
    """
    # Deferred for start-up time: `check --fix` imports this module, and never prints.
    from google.protobuf import text_format

    body = text_format.MessageToString(config, as_utf8=True, use_short_repeated_primitives=True)
    text = "\n".join([*header, "", body]) if header else body
    written = write_text(text)
    if parse_config(written.encode("utf-8")).config != config:
        raise FormatError(
            "internal error: the written text would not mean the same as the configuration "
            "(please report this bug)"
        )
    return written


def write_text(text: str) -> str:
    """Config text in the written field order and `fmt` layout, comments kept.

    Raises FormatError when `format_text` would (the text does not parse, ...). `text`
    may carry surrogate escapes (bytes that were not UTF-8); they are kept.
    """
    formatted = format_text(text)
    parsed = parse_config(formatted.encode("utf-8", errors="surrogateescape"))
    lines = formatted.split("\n")
    ordered = format_text("\n".join(_Reorder(parsed.document, lines).document()))
    again = parse_config(ordered.encode("utf-8", errors="surrogateescape"))
    if again.config != parsed.config or _comments(again.document) != _comments(parsed.document):
        raise FormatError(
            "internal error: reordering the fields would change the configuration or its "
            "comments; nothing was written (please report this bug)"
        )
    return ordered


def keep_layout(before: str, after: str, *, formatted: bool | None = None) -> str:
    """`after`, an edit of config text `before`, in `fmt` layout when `before` was.

    A fix that inserts a field writes it where it belongs but not necessarily on a
    line of its own; in a file the user keeps formatted, the edited file is formatted
    again (only the edited lines change, the rest already was in that layout). A file
    that was not in `fmt` layout, or that does not parse, keeps its own layout: the
    edits are applied as they are and nothing else moves. `formatted` is
    `is_formatted(before)` when the caller knows it already.
    """
    if before == after or not (is_formatted(before) if formatted is None else formatted):
        return after
    try:
        return format_text(after)
    except FormatError:
        return after


def is_formatted(text: str) -> bool:
    """Is `text` a config in `fmt` layout (it parses, and `fmt` would not change it)?"""
    try:
        return format_text(text) == text
    except FormatError:
        return False


def _comments(document: Document) -> list[str]:
    return sorted(comment.text.rstrip() for comment in document.comments)


class _Reorder:
    """The lines of `fmt`-laid-out text with the fields of every block sorted.

    In that layout every field starts on a line of its own and ends at the end of a
    line, so a field is a run of lines: the comment and blank lines above it, then its
    own. Sorting those runs moves each comment with its field; what follows the last
    field of a block (a comment before its `}`) stays last, and so do comment lines at
    the top of the file that a blank line sets apart from the first field (a header).
    """

    def __init__(self, document: Document, lines: list[str]) -> None:
        self.root = document
        self.lines = lines

    def span(self, first: int, last: int) -> list[str]:
        """Lines `first` to `last` (1-based, inclusive)."""
        return self.lines[first - 1 : last]

    def document(self) -> list[str]:
        fields = self.root.fields
        if not fields:
            return self.lines
        header_end = 0
        for number in range(1, fields[0].first.line):
            if not self.lines[number - 1].strip():
                header_end = number
        body = self.fields(fields, MODEL_CONFIG_DESCRIPTOR, header_end + 1)
        return self.span(1, header_end) + body + self.lines[fields[-1].last.line :]

    def fields(self, fields: Sequence[Field], descriptor: Descriptor, start: int) -> list[str]:
        """Lines `start` to the end of the last of `fields`, the fields sorted."""
        ranks = field_ranks(descriptor)
        runs: list[tuple[int, list[str]]] = []
        cursor = start
        for node in fields:
            end = node.last.line
            rank = ranks.get(node.name.text, len(ranks))
            runs.append((rank, self.field(node, descriptor, cursor, end)))
            cursor = end + 1
        runs.sort(key=lambda run: run[0])  # stable: repeated elements keep their order
        return [line for _, run in runs for line in run]

    def field(self, node: Field, descriptor: Descriptor, start: int, end: int) -> list[str]:
        """Lines `start` to `end` holding `node`, the fields of its blocks sorted."""
        fd = descriptor.fields_by_name[node.name.text]
        if fd.cpp_type != FieldDescriptor.CPPTYPE_MESSAGE:
            return self.span(start, end)
        value = node.value
        blocks = value.items if isinstance(value, ListValue) else [value]
        out: list[str] = []
        cursor = start
        for block in blocks:
            if not isinstance(block, Block) or not block.fields:
                continue
            out += self.span(cursor, block.open.line)
            out += self.fields(block.fields, message_type(fd), block.open.line + 1)
            cursor = block.fields[-1].last.line + 1
        return out + self.span(cursor, end)
