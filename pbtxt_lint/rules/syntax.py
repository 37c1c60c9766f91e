"""PL0xx: reading and parsing config.pbtxt.

Triton reads the file with protobuf's text parser and reports only
`failed to read text proto from <path>` (protobuf logs the first problem). These rules
report every problem in the file, each at its token, in plain words.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    WARNING,
    Finding,
    ModelContext,
    ProblemKind,
    Rule,
    RuleOptions,
    Severity,
    Stage,
    rule,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

_PARSE_FAILED = "Poll failed for model directory '<model>': failed to read text proto from <path>"


RULES_OF_KINDS: dict[ProblemKind, Rule] = {}
"""The rule each kind of parser problem is reported by (the engine's cap, PL019, counts
what it leaves out by code)."""


def _parser_problems(context: ModelContext, kind: ProblemKind) -> Iterator[Finding]:
    """The parser's problems of one kind, each at its token."""
    if context.parsed is None:
        return
    for problem in context.parsed.problems:
        if problem.kind is kind:
            yield Finding(problem.message, span=problem.span, hint=problem.hint, fix=problem.fix)


def _parser_rule(
    kind: ProblemKind,
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    **options: Unpack[RuleOptions],
) -> Rule:
    """A rule that reports the parser's problems of one kind."""

    def check(context: ModelContext) -> Iterator[Finding]:
        yield from _parser_problems(context, kind)

    made = rule(code, name, severity, summary, **options)(check)
    RULES_OF_KINDS[kind] = made
    return made


syntax_error = _parser_rule(
    ProblemKind.SYNTAX,
    "PL001",
    "syntax-error",
    ERROR,
    "The file is not valid protobuf text format.",
    triton=_PARSE_FAILED,
    stage=Stage.PARSE,
    needs_config=False,
    doc="""
    Structural mistakes: a missing `:` before a value, a block that is never closed, a
    stray `}`, a list without commas. Triton logs only the first one, as
    `Error parsing text-format inference.ModelConfig: <line>:<col>: ...`, and refuses
    the model.

    Bad:
        max_batch_size 8
        input [ { name: "x" dims: [ 1 2 ] }
    Good:
        max_batch_size: 8
        input [ { name: "x" dims: [ 1, 2 ] } ]
    """,
)

unknown_field = _parser_rule(
    ProblemKind.UNKNOWN_FIELD,
    "PL002",
    "unknown-field",
    ERROR,
    "A field name that does not exist in this block of ModelConfig.",
    triton='Message type "inference.<Message>" has no field named "<field>".',
    stage=Stage.PARSE,
    needs_config=False,
    doc="""
    A typo (`dim`, `max_batch`), a JSON-style name (`maxBatchSize`), or a real field in
    the wrong block (`dims` at the top level). protobuf rejects the whole file.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dim: [ 3 ] } ]
    Good:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } ]
    """,
)

unknown_enum = _parser_rule(
    ProblemKind.UNKNOWN_ENUM,
    "PL003",
    "unknown-enum-value",
    ERROR,
    "An enum value that does not exist (TYPE_FLOAT32, GPU, ...).",
    triton='Unknown enumeration value of "<value>" for field "<field>".',
    stage=Stage.PARSE,
    needs_config=False,
    doc="""
    Triton's data types are `TYPE_FP32`, `TYPE_INT64`, `TYPE_STRING`... (not
    `TYPE_FLOAT32`, `FP32` or `TYPE_BYTES`), instance kinds are `KIND_GPU`/`KIND_CPU`.

    Bad:
        data_type: TYPE_FLOAT32
        instance_group [ { kind: GPU } ]
    Good:
        data_type: TYPE_FP32
        instance_group [ { kind: KIND_GPU } ]
    """,
)

quoted_enum = _parser_rule(
    ProblemKind.QUOTED_ENUM,
    "PL004",
    "quoted-enum",
    ERROR,
    "An enum value written in quotes.",
    triton="Expected integer or identifier, got: <token>",
    stage=Stage.PARSE,
    needs_config=False,
    doc="""
    Enum values are identifiers in text format; a quoted `"TYPE_FP32"` is a string and
    protobuf rejects the file (JSON configs quote them, pbtxt does not).

    Bad:
        data_type: "TYPE_FP32"
    Good:
        data_type: TYPE_FP32
    """,
)

wrong_type = _parser_rule(
    ProblemKind.WRONG_TYPE,
    "PL005",
    "wrong-value-type",
    ERROR,
    "A value of the wrong kind: a bare word for a string, a quoted number, a list for "
    "a single value.",
    triton="Expected string, got: <token> / Expected integer, got: <token>",
    stage=Stage.PARSE,
    needs_config=False,
    doc="""
    Strings must be quoted, numbers must not be, booleans are `true`/`false`, message
    fields take a block, and `parameters` values are blocks with `string_value`.

    Bad:
        name: resnet
        max_batch_size: "8"
        parameters { key: "k" value: "v" }
    Good:
        name: "resnet"
        max_batch_size: 8
        parameters { key: "k" value: { string_value: "v" } }
    """,
)

duplicate_field = _parser_rule(
    ProblemKind.DUPLICATE_FIELD,
    "PL006",
    "duplicate-field",
    ERROR,
    "A non-repeated field set twice in the same block.",
    triton='Non-repeated field "<field>" is specified multiple times.',
    stage=Stage.PARSE,
    needs_config=False,
    doc="""
    Usually a copy-paste leftover. Unlike repeated fields, singular fields cannot appear
    twice; protobuf rejects the file.

    Bad:
        max_batch_size: 8
        max_batch_size: 16
    Good:
        max_batch_size: 16
    """,
)

oneof_conflict = _parser_rule(
    ProblemKind.ONEOF_CONFLICT,
    "PL007",
    "oneof-conflict",
    ERROR,
    "Two alternatives of a oneof set together (dynamic_batching with sequence_batching).",
    triton='Field "<second>" is specified along with field "<first>", another member of '
    'oneof "<oneof>".',
    stage=Stage.PARSE,
    needs_config=False,
    doc="""
    A model has one scheduler (`dynamic_batching`, `sequence_batching` or
    `ensemble_scheduling`), one version policy (`latest`, `all` or `specific`), one
    sequence strategy (`direct` or `oldest`).

    Bad:
        dynamic_batching { }
        sequence_batching { }
    Good:
        sequence_batching { }
    """,
)

out_of_range = _parser_rule(
    ProblemKind.OUT_OF_RANGE,
    "PL008",
    "integer-out-of-range",
    ERROR,
    "An integer that does not fit the field's type.",
    triton="Integer out of range (<token>)",
    stage=Stage.PARSE,
    needs_config=False,
    doc="""
    `max_batch_size` is int32; `num_versions` and `priority_levels` are unsigned, so a
    negative value does not parse.

    Bad:
        version_policy: { latest: { num_versions: -1 } }
    Good:
        version_policy: { latest: { num_versions: 1 } }
    """,
)

placeholder = _parser_rule(
    ProblemKind.PLACEHOLDER,
    "PL009",
    "template-placeholder",
    ERROR,
    "An unfilled template placeholder where a value belongs, such as "
    "${triton_max_batch_size} or {{ x }}: the file does not parse.",
    triton=_PARSE_FAILED,
    stage=Stage.PARSE,
    needs_config=False,
    doc="""
    Templated repositories (TensorRT-LLM's `fill_template.py`, Helm, Jinja) must be
    rendered before Triton reads them; a placeholder left where a value belongs does not
    parse. Reported once per file, at the first such placeholder, with the list of all
    of them (those inside strings too); the rest of the file is not checked, since what
    follows a placeholder only cascades. A file whose placeholders all sit inside
    strings parses: PL018.

    Bad:
        max_batch_size: ${triton_max_batch_size}
    Good:
        max_batch_size: 64
    """,
)

encoding = _parser_rule(
    ProblemKind.ENCODING,
    "PL010",
    "file-encoding",
    ERROR,
    "The file starts with a UTF-8 byte-order mark.",
    triton="Error parsing text-format inference.ModelConfig: 1:1: Interpreting non ascii "
    "codepoint 239.",
    stage=Stage.PARSE,
    needs_config=False,
    doc="""
    Editors on Windows may save "UTF-8 with BOM"; protobuf's parser sees the BOM as a
    stray character and Triton refuses the model.

    Bad:
        (a file saved as "UTF-8 with BOM")
    Good:
        (the same file saved as UTF-8)
    """,
)

not_utf8 = _parser_rule(
    ProblemKind.NOT_UTF8,
    "PL014",
    "not-utf8",
    WARNING,
    "The file is not valid UTF-8.",
    needs_config=False,
    doc="""
    Triton reads the bytes as they are (in comments they do no harm), but a string
    value with Latin-1 or Windows-1252 bytes reaches the backend as invalid UTF-8.

    Bad:
        # café   (saved as Latin-1)
    Good:
        # café   (saved as UTF-8)
    """,
)

duplicate_map_key = _parser_rule(
    ProblemKind.DUPLICATE_MAP_KEY,
    "PL011",
    "duplicate-map-key",
    INFO,
    "A map key (parameters, input_map, output_map, ...) given twice; the last one wins.",
    needs_config=False,
    doc="""
    Triton accepts it silently and keeps only the last entry, so the first one is dead
    text, often a mapping you thought was active.

    Bad:
        parameters { key: "execution_mode" value { string_value: "0" } }
        parameters { key: "execution_mode" value { string_value: "1" } }
    Good:
        parameters { key: "execution_mode" value { string_value: "1" } }
    """,
)

undeclared_enum_number = _parser_rule(
    ProblemKind.UNDECLARED_ENUM_NUMBER,
    "PL012",
    "undeclared-enum-number",
    WARNING,
    "An enum given as a number that is not one of its declared values.",
    needs_config=False,
    doc="""
    proto3 enums are open, so `data_type: 42` parses, and Triton then behaves
    unpredictably. Use the enum's name.

    Bad:
        data_type: 42
    Good:
        data_type: TYPE_FP32
    """,
)


quoted_placeholder = _parser_rule(
    ProblemKind.QUOTED_PLACEHOLDER,
    "PL018",
    "quoted-template-placeholder",
    INFO,
    "An unfilled template placeholder inside a string: Triton reads it, the backend gets "
    "the literal text.",
    needs_config=False,
    doc="""
    `string_value: "${engine_dir}"` parses, so Triton loads the file, and the backend
    (or model.py) receives the text `${engine_dir}` as the value. What that does depends
    on who reads it: TensorRT-LLM's backend and its Python models take a value of the
    form `${...}` as not set (their default; its `fill_template.py` leaves optional
    parameters so, and its own parameters have their own rules), any other backend or
    model.py gets the text itself, as a path, a number or a flag. A fact worth knowing
    (info), never a guess at a failure: once per file, listing the placeholders. Only
    `${...}` and `{{ ... }}` count inside strings: `$$TRITON_MODEL_DIRECTORY` is
    Triton's own variable. A placeholder where a value belongs is PL009.

    Bad:
        parameters { key: "tokenizer_dir" value: { string_value: "${tokenizer_dir}" } }
    Good:
        parameters { key: "tokenizer_dir" value: { string_value: "/models/llama/tokenizer" } }
    """,
)


@rule(
    "PL019",
    "problems-not-shown",
    ERROR,
    "How many more problems a file Triton refuses has, past the first 20 shown.",
    triton=_PARSE_FAILED,
    stage=Stage.PARSE,
    needs_config=False,
)
def problems_not_shown(context: ModelContext) -> Iterator[Finding]:
    """Triton stops at a config's first parse error; pbtxt-lint reports the first 20
    problems of such a file among the rules the run selects, then this one line with
    how many more there are and of which codes. It follows the selection of what it
    counts: `--ignore PL002` leaves PL002s out of the count, and with nothing selected
    left out there is no such line. Its severity is that of the worst problem it
    counts. Reported by the linter core after the rules have run; its check here
    yields nothing.

    Bad:
        (a file with 45 syntax errors: 20 shown, then "25 more problems ... (25 PL001)")
    Good:
        (fix the first ones and check again)
    """
    yield from ()


@rule(
    "PL013",
    "unreadable-config",
    ERROR,
    "The config file exists but cannot be read (permissions, not a regular file, too large).",
    triton="failed to open text file for read <path>: <strerror>",
    stage=Stage.PARSE,
    needs_config=False,
)
def unreadable_config(context: ModelContext) -> Iterator[Finding]:
    """Triton fails the model when it cannot read its configuration file.

    pbtxt-lint also refuses to open FIFOs and devices (they could block forever), and
    to read files over 8 MiB or of more than 100,000 tokens (a model configuration is a
    few KiB, a few hundred tokens).

    Bad:
        config.pbtxt with mode 000
    Good:
        config.pbtxt readable by the user Triton runs as
    """
    config_file = context.config_file
    if config_file is not None and config_file.read_error is not None:
        yield Finding(
            config_file.read_error,
            file=config_file.path,
            hint="make the file a readable regular file",
        )
    yield from _parser_problems(context, ProblemKind.TOO_LARGE)


RULES_OF_KINDS[ProblemKind.TOO_LARGE] = unreadable_config


@rule(
    "PL017",
    "not-text",
    ERROR,
    "The config file is not text: a binary-serialized ModelConfig, UTF-16, or other binary data.",
    triton="Error parsing text-format inference.ModelConfig: 2:1: Invalid control characters "
    "encountered in text. / Poll failed for model directory '<model>': failed to read text "
    "proto from <path>",
    stage=Stage.PARSE,
    needs_config=False,
)
def not_text(context: ModelContext) -> Iterator[Finding]:
    """Triton reads the configuration with protobuf's text parser, which refuses the
    first byte that is not text (a control character, a NUL). A ModelConfig a script
    saved with `SerializeToString()`, a file Windows PowerShell wrote as UTF-16, or a
    model or archive copied to the wrong name is reported once, with what it looks
    like, instead of as one syntax error per stray byte. A binary ModelConfig converts
    to text with `pbtxt-lint convert config.pbtxt --to pbtxt -o config.pbtxt`.

    tritonserver 2.51 logs, for a binary ModelConfig, `Error parsing text-format
    inference.ModelConfig: 2:1: Invalid control characters encountered in text.`; for
    UTF-16 with a byte-order mark, `1:1: Interpreting non ascii codepoint 255.`; then
    `Poll failed for model directory 'm': failed to read text proto from
    .../m/config.pbtxt`, and the model is not loaded.

    Bad:
        config.pbtxt written by open(path, "wb").write(config.SerializeToString())
    Good:
        config.pbtxt written by open(path, "w").write(text_format.MessageToString(config))
    """
    parsed = context.parsed
    config_file = context.config_file
    if parsed is not None and parsed.not_text is not None and config_file is not None:
        yield Finding(
            parsed.not_text.message,
            file=config_file.path,
            hint=parsed.not_text.hint(config_file.path),
        )
