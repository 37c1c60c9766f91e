"""What protobuf's C++ text parser (tritonserver 2.51) accepts, spelling by spelling.

Triton reads config.pbtxt with the C++ `TextFormat` parser; pbtxt-lint's own tokenizer
and binder (`pbtxt_lint/textproto/`) decide with its rules. These tables were made by
asking the real tritonserver 2.51 about every case (one model directory per case,
`failed to read text proto` or not); `test_tables_are_what_tritonserver_does` asks it
again, so a table entry can never drift from the server. The parser tests need no
server. `test_built_message_is_what_text_format_builds` checks that the ModelConfig the
binder builds is the one Python's `text_format` builds, wherever Python accepts.
"""

# ruff: noqa: E501  (the tables keep each case on one line, as tritonserver saw it)
from __future__ import annotations

import random
from pathlib import Path

import pytest
from fixture_cases import corpus
from google.protobuf import text_format
from oracle import TritonServer, require_tritonserver

from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.textproto.parse import parse_config

ROOT = Path(__file__).resolve().parent.parent
BASE = b'backend: "python"\n'
MBS = "max_batch_size: {}"
DIMS = 'input [{{ name: "I" data_type: TYPE_FP32 dims: [{}] }}]'
U32 = "version_policy {{ latest {{ num_versions: {} }} }}"
U64 = "dynamic_batching {{ max_queue_delay_microseconds: {} }}"
FLT = "sequence_batching {{ direct {{ minimum_slot_utilization: {} }} }}"
BOOL = "model_transaction_policy {{ decoupled: {} }}"
ENUM = 'input [{{ name: "I" data_type: {} dims: [1] }}]'
STR = 'parameters {{ key: "k" value {{ string_value: {} }} }}'

VALUES: list[tuple[str, str, list[str], list[str]]] = [
    # (group, template, spellings tritonserver accepts, spellings it refuses)
    (
        "i32",
        MBS,
        [
            "0",
            "-0",
            "00",
            "0x0",
            "0X1f",
            "017",
            "2147483647",
            "-2147483648",
            "0x7fffffff",
            "-0x80000000",
            "017777777777",
            "- 1",
            "-\n1",
            "-#c\n1",
            "1 ;",
            "1,",
            "0x00000000001",
            "0000000001",
        ],
        [
            "0xg",
            "0x",
            "08",
            "09",
            "1e3",
            "1.0",
            "1.",
            "1f",
            "1F",
            "2147483648",
            "-2147483649",
            "0x80000000",
            "020000000000",
            "+1",
            "--1",
            "- -1",
            "1_000",
            "1a",
            "1.5",
            ".5",
            "inf",
            "-inf",
            "1e",
            "0x1F.5",
            "0.5",
            "-",
            "t",
            "'1'",
            "1;;",
        ],
    ),
    (
        "i64",
        DIMS,
        [
            "9223372036854775807",
            "-9223372036854775808",
            "-1",
            "- 1",
            "0x7FFFFFFFFFFFFFFF",
            "-0x8000000000000000",
            "1, -1",
        ],
        [
            "9223372036854775808",
            "-9223372036854775809",
            "18446744073709551616",
            "1,,2",
            ",1",
            "1 2",
        ],
    ),
    ("u32", U32, ["4294967295", "0x10", "010"], ["4294967296", "-0", "- 0", "-1", "1.0"]),
    (
        "u64",
        U64,
        ["18446744073709551615", "0xFFFFFFFFFFFFFFFF", "07", "0"],
        ["18446744073709551616", "-0", "0x10000000000000000"],
    ),
    (
        "flt",
        FLT,
        [
            "1",
            "-1",
            "0",
            "1.5",
            "1.5f",
            "1.5F",
            "1f",
            "1e3",
            "1e3f",
            "1.e3",
            "1e-5",
            ".5",
            "5.",
            "inf",
            "INF",
            "Infinity",
            "-inf",
            "- inf",
            "nan",
            "NaN",
            "-nan",
            "18446744073709551616",
            "99999999999999999999999",
            "1e999",
            "- 1",
            "-0",
            "0.",
            "1e+5",
            "1E5",
            "1.5e-3F",
            "5.f",
            ".5f",
            "-  \n  2.5",
        ],
        [
            "00",
            "01",
            "0x10",
            "08",
            "1e",
            "1e+",
            "inff",
            "infinityf",
            "infinite",
            "0.5ff",
            "1.2.3",
            "+1",
            "t",
            "'1'",
            "1_0",
            "1ef",
        ],
    ),
    (
        "bool",
        BOOL,
        ["t", "f", "true", "True", "false", "False", "0", "1", "0x1", "01", "00", "0x0", "0x01"],
        ["TRUE", "2", "-0", "-1", "yes", '"true"', "1.0", "1f", "T", "F", "- 1"],
    ),
    (
        "enum",
        ENUM,
        [
            "TYPE_FP32",
            "11",
            "0x0b",
            "013",
            "-0",
            "- 1",
            "-1",
            "999",
            "2147483647",
            "-2147483648",
            "0",
        ],
        [
            "+1",
            "2147483648",
            "-2147483649",
            '"TYPE_FP32"',
            "type_fp32",
            "11.0",
            "1e1",
            "0x",
            "- TYPE_FP32",
            "11f",
        ],
    ),
    (
        "str",
        STR,
        [
            '"a"',
            "'a'",
            '"a" "b"',
            '"a"\n"b"',
            "\"a\" 'b'",
            '"\\a\\b\\f\\n\\r\\t\\v\\\\\\?\\\'\\""',
            '"\\0"',
            '"\\7"',
            '"\\77"',
            '"\\777"',
            '"\\x4"',
            '"\\x41"',
            '"\\x414"',
            '"\\u0041"',
            '"\\U00000041"',
            '"\\U0010FFFF"',
            '"\\U00110000"',
            '"\\ud800"',
            '"\\ud800\\udc00"',
            '"a\tb"',
            '"a\rb"',
            '"a\x01b"',
            '"a\x7fb"',
            '"é"',
            '"😀"',
            '"\\xff"',
            '"\\xc3\\xa9"',
            '"\\u00e9"',
            '"\\uDC00"',
            '"\\U0000d800"',
            '"a""b"',
            '""',
            "''",
        ],
        [
            '"\\8"',
            '"\\9"',
            '"\\x"',
            '"\\X41"',
            '"\\u00"',
            '"\\u004"',
            '"\\U0000004"',
            '"\\q"',
            '"\\e"',
            '"\\ "',
            '"a\x00b"',
            '"a\nb"',
            '"abc',
            "'abc\"",
            '"\\\n"',
            '"a"b',
            '"\\/"',
            '"\\%"',
            '"\\N"',
            '"\\c"',
        ],
    ),
]

STRUCTURE: list[tuple[str, str | bytes, bool] | tuple[str, str | bytes, bool, bool]] = [
    # (case, text after `backend: "python"`, does tritonserver accept it[, raw file])
    ("nbsp between", "max_batch_size:\xa01", False),
    ("nbsp in comment", "# a\xa0b\nmax_batch_size: 1", True),
    ("e-acute in comment", "# café\nmax_batch_size: 1", True),
    ("latin1 byte in comment", b"# caf\xe9\nmax_batch_size: 1", True),
    ("latin1 byte in string", b'parameters { key: "k" value { string_value: "caf\xe9" } }', True),
    ("ff byte in string", b'parameters { key: "k" value { string_value: "\xff\xfe" } }', True),
    ("latin1 byte outside", b"max_batch_size: 1 \xe9", False),
    ("ctrl 01 between", "max_batch_size:\x011", False),
    ("ctrl 01 in comment", "# a\x01b\nmax_batch_size: 1", True),
    ("ctrl 1f between", "max_batch_size:\x1f1", False),
    ("NUL in comment", "# a\x00b\nmax_batch_size: 1", False),
    ("NUL at end", "max_batch_size: 1\x00", False),
    ("NUL between", "max_batch_size:\x001", False),
    ("DEL between", "max_batch_size:\x7f1", False),
    ("DEL in comment", "# a\x7f\nmax_batch_size: 1", True),
    ("vt ff whitespace", "max_batch_size:\x0b\x0c1", True),
    ("CR only line breaks", 'max_batch_size: 1\rplatform: ""', True),
    ("CRLF", 'max_batch_size: 1\r\nplatform: ""\r\n', True),
    ("BOM at start", b'\xef\xbb\xbfbackend: "python"\n', False, True),
    ("BOM in middle", b'backend: "python"\n\xef\xbb\xbfmax_batch_size: 1\n', False, True),
    ("zero-width space", "max_batch_size: 1\u200b", False),
    ("fullwidth colon", "max_batch_size\uff1a1", False),
    ("slash comment", "// c\nmax_batch_size: 1", False),
    ("block comment", "/* c */ max_batch_size: 1", False),
    ("hash at eof no newline", b'backend: "python" # end', True, True),
    ("empty file", b"", True, True),
    ("only comment", b"# nothing\n", True, True),
    ("only whitespace", b"  \n\t\n", True, True),
    ("sep ; after field", "max_batch_size: 1;", True),
    ("sep , after block", "dynamic_batching {},", True),
    ("sep ; before first", b'; backend: "python"', False, True),
    ("sep ;; double", "max_batch_size: 1;;", False),
    ("sep ,; mixed", "max_batch_size: 1,;", False),
    ("sep inside list ;", 'input [{ name: "I" data_type: TYPE_FP32 dims: [1;2] }]', False),
    ("list trailing comma scalar", 'input [{ name: "I" data_type: TYPE_FP32 dims: [1,] }]', False),
    ("list leading comma", 'input [{ name: "I" data_type: TYPE_FP32 dims: [,1] }]', False),
    ("list empty scalar", 'input [{ name: "I" data_type: TYPE_FP32 dims: [] }]', True),
    ("list empty msg", "input []", True),
    ("list empty msg colon", "input: []", True),
    ("msg list colon", 'input: [{ name: "I" data_type: TYPE_FP32 dims: [1] }]', True),
    ("msg list trailing comma", 'input [{ name: "I" data_type: TYPE_FP32 dims: [1] },]', False),
    (
        "msg list ; sep",
        'input [{ name: "I" data_type: TYPE_FP32 dims: [1] }; { name: "J" data_type: TYPE_FP32 dims: [1] }]',
        False,
    ),
    (
        "msg list no sep",
        'input [{ name: "I" data_type: TYPE_FP32 dims: [1] } { name: "J" data_type: TYPE_FP32 dims: [1] }]',
        False,
    ),
    (
        "repeated msg blocks",
        'input { name: "I" data_type: TYPE_FP32 dims: [1] } input { name: "J" data_type: TYPE_FP32 dims: 1 }',
        True,
    ),
    (
        "repeated scalars",
        'input { name: "I" data_type: TYPE_FP32 dims: 1 dims: 2 dims: [3, 4] }',
        True,
    ),
    ("scalar list no colon", 'input [{ name: "I" data_type: TYPE_FP32 dims [1] }]', False),
    ("scalar no colon", "max_batch_size 1", False),
    ("msg colon", "dynamic_batching: {}", True),
    ("msg angle", "dynamic_batching < >", True),
    ("msg colon angle", "dynamic_batching: < >", True),
    ("msg mismatched", "dynamic_batching { >", False),
    ("msg mismatched 2", "dynamic_batching < }", False),
    ("msg list for singular", "dynamic_batching [ {} ]", False),
    ("scalar list for singular", "max_batch_size: [1]", False),
    ("scalar list empty singular", "max_batch_size: []", False),
    ("msg given scalar", "dynamic_batching: 5", False),
    ("scalar given msg", "max_batch_size { }", False),
    ("scalar colon msg", "max_batch_size: { }", False),
    ("dup i32 0 then 1", "max_batch_size: 0 max_batch_size: 1", True),
    ("dup i32 1 then 2", "max_batch_size: 1 max_batch_size: 2", False),
    ("dup i32 1 then 0", "max_batch_size: 1 max_batch_size: 0", False),
    ("dup i32 0 0 0", "max_batch_size: 0 max_batch_size: 0 max_batch_size: 0", True),
    ("dup str empty then x", 'platform: "" platform: "x"', True),
    ("dup str x then empty", 'platform: "x" platform: ""', False),
    ("dup str backend", 'backend: "python"', False),
    ("dup msg", "dynamic_batching {} dynamic_batching {}", False),
    ("oneof two", "dynamic_batching {} sequence_batching {}", False),
    ("oneof in version_policy", "version_policy { latest {} all {} }", False),
    (
        "dup enum default then other",
        'input [{ name: "I" data_type: TYPE_INVALID data_type: TYPE_FP32 dims: [1] }]',
        True,
    ),
    (
        "dup enum other then default",
        'input [{ name: "I" data_type: TYPE_FP32 data_type: TYPE_INVALID dims: [1] }]',
        False,
    ),
    (
        "dup bool false then true",
        "model_transaction_policy { decoupled: false decoupled: true }",
        True,
    ),
    (
        "dup bool true then false",
        "model_transaction_policy { decoupled: true decoupled: false }",
        False,
    ),
    (
        "dup float 0 then 0.5",
        "sequence_batching { direct { minimum_slot_utilization: 0 minimum_slot_utilization: 0.5 } }",
        True,
    ),
    (
        "dup float -0 then 0.5",
        "sequence_batching { direct { minimum_slot_utilization: -0 minimum_slot_utilization: 0.5 } }",
        False,
    ),
    (
        "dup float -0.0 then 0.5",
        "sequence_batching { direct { minimum_slot_utilization: -0.0 minimum_slot_utilization: 0.5 } }",
        False,
    ),
    (
        "dup float nan then 0.5",
        "sequence_batching { direct { minimum_slot_utilization: nan minimum_slot_utilization: 0.5 } }",
        False,
    ),
    (
        "dup float 1e-50 then 0.5",
        "sequence_batching { direct { minimum_slot_utilization: 1e-50 minimum_slot_utilization: 0.5 } }",
        True,
    ),
    (
        "dup u64 0 then 5",
        "dynamic_batching { max_queue_delay_microseconds: 0 max_queue_delay_microseconds: 5 }",
        True,
    ),
    (
        "map dup key",
        'parameters { key: "a" value { string_value: "1" } } parameters { key: "a" value { string_value: "2" } }',
        True,
    ),
    (
        "map entry key twice empty first",
        'parameters { key: "" key: "a" value { string_value: "1" } }',
        False,
    ),
    ("map entry key twice", 'parameters { key: "a" key: "b" value { string_value: "1" } }', False),
    (
        "map entry value twice",
        'parameters { key: "a" value { string_value: "1" } value { string_value: "2" } }',
        False,
    ),
    ("map entry no key", 'parameters { value { string_value: "1" } }', True),
    ("map entry no value", 'parameters { key: "a" }', True),
    ("map entry empty", "parameters { }", True),
    (
        "map list",
        'parameters [ { key: "a" value { string_value: "1" } }, { key: "b" value { string_value: "2" } } ]',
        True,
    ),
    ("map colon", 'parameters: { key: "a" value { string_value: "1" } }', True),
    ("map unknown field", 'parameters { key: "a" val { string_value: "1" } }', False),
    ("map value first", 'parameters { value { string_value: "1" } key: "a" }', True),
    (
        "map u64 key octal",
        "dynamic_batching { priority_levels: 2 priority_queue_policy { key: 01 value { } } }",
        True,
    ),
    (
        "map u64 key dup 0 then 1",
        "dynamic_batching { priority_levels: 2 priority_queue_policy { key: 0 key: 1 value { } } }",
        False,
    ),
    (
        "map u64 key -0",
        "dynamic_batching { priority_levels: 2 priority_queue_policy { key: -0 value { } } }",
        False,
    ),
    (
        "map str value dup",
        'input [{ name: "I" data_type: TYPE_FP32 dims: [1] }] optimization { cuda { graph_spec [ { input { key: "I" value { dim: [1] } } } ] } }',
        True,
    ),
    ("field name case", "Max_batch_size: 1", False),
    ("extension", "[foo.bar]: 1", False),
    ("extension braces", "[foo.bar] { }", False),
    ("number as field name", "1: 2", False),
    ("stray close top", "}", False),
    ("stray close after", "max_batch_size: 1 }", False),
    ("need space number ident", 'max_batch_size: 1platform: ""', False),
    ("no space after string", 'platform: ""max_batch_size: 1', True),
    (
        "no space after ]",
        'input [{ name: "I" data_type: TYPE_FP32 dims: [1]}]max_batch_size: 1',
        True,
    ),
    ("ident dot number", "max_batch_size: 1 platform.5", False),
    ("colon no space", "max_batch_size:1", True),
    ("double colon", "max_batch_size:: 1", False),
    ("colon newline value", "max_batch_size:\n1", True),
    ("ident with dash", "max-batch-size: 1", False),
    ("unterminated block eof", "dynamic_batching {", False),
    ("unterminated list eof", 'input [{ name: "I" data_type: TYPE_FP32 dims: [1', False),
    ("value missing eof", "max_batch_size:", False),
    ("long deep nesting unknown", "a { " * 200 + "} " * 200, False),
    (
        "deepest valid",
        'instance_group [ { rate_limiter { resources [ { name: "r" count: 1 } ] } } ]',
        True,
    ),
    ("enum list", 'input [{ name: "I" data_type: [TYPE_FP32] dims: [1] }]', False),
    (
        "string list repeated",
        'batch_input [ { target_name: ["a", "b"] kind: BATCH_ELEMENT_COUNT data_type: TYPE_FP32 source_input: "x" } ]',
        True,
    ),
    (
        "string concat in list",
        'batch_input [ { target_name: ["a" "b", "c"] kind: BATCH_ELEMENT_COUNT data_type: TYPE_FP32 source_input: "x" } ]',
        True,
    ),
    ("semicolon in list msgs", 'input [{ name: "I" data_type: TYPE_FP32 dims: [1]; }]', True),
    ("comma inside block", 'input [{ name: "I", data_type: TYPE_FP32, dims: [1], }]', True),
    ("bool list", 'input [{ name: "I" data_type: TYPE_FP32 dims: [1] optional: [true] }]', False),
    ("tab in identifier gap", "max_batch_size\t:\t1", True),
    ("empty string key name", 'name: ""', True),
    ("unicode ident", "máx_batch_size: 1", False),
    ("hex upper X enum", 'input [{ name: "I" data_type: 0X0B dims: [1] }]', True),
    ("minus comment enum", 'input [{ name: "I" data_type: -#x\n1 dims: [1] }]', True),
    ("int field string", 'max_batch_size: "1"', False),
    ("string field int", "platform: 1", False),
    ("string field ident", "platform: onnx", False),
    ("msg list with scalar", "input [ 1 ]", False),
]


def _cases() -> list[tuple[str, bytes, bool]]:
    """(id, whole file, accepted) for every table entry."""
    cases = []
    for group, template, accepted, refused in VALUES:
        for spellings, verdict in ((accepted, True), (refused, False)):
            for spelling in spellings:
                data = BASE + template.format(spelling).encode("utf-8", "surrogatepass") + b"\n"
                cases.append((f"{group} {spelling!r}", data, verdict))
    for name, text, verdict, *raw in STRUCTURE:
        data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
        cases.append((name, data if raw else BASE + data + b"\n", verdict))
    return cases


CASES = _cases()


@pytest.mark.parametrize(("data", "accepted"), [pytest.param(d, a, id=i) for i, d, a in CASES])
def test_parse_config_decides_like_tritonserver(data: bytes, accepted: bool) -> None:
    parsed = parse_config(data)
    assert (parsed.config is not None) == accepted, parsed.problems
    if not accepted:  # every refusal is explained at a position, in plain words
        assert parsed.problems and all(p.span.line >= 1 for p in parsed.problems)


def test_tables_are_what_tritonserver_does(tmp_path: Path) -> None:
    server = _server()
    repository = tmp_path / "repo"
    for index, (_, data, _) in enumerate(CASES):
        (repository / f"x{index}" / "1").mkdir(parents=True)
        (repository / f"x{index}" / "config.pbtxt").write_bytes(data)
    verdicts = server.validate(repository, timeout=300)
    wrong = [
        f"{name}: tritonserver {'refuses' if accepted else 'accepts'} it"
        for index, (name, _, accepted) in enumerate(CASES)
        if ("failed to read text proto" not in verdicts[f"x{index}"].message) != accepted
    ]
    assert not wrong, "\n".join(wrong)


def _server() -> TritonServer:
    return require_tritonserver()


CONFIGS = list(corpus("*.pbtxt").values())


def test_built_message_is_what_text_format_builds() -> None:
    compared = 0
    for path in CONFIGS:
        data = path.read_bytes()
        ours = parse_config(data).config
        theirs = ModelConfig()
        try:
            text_format.Parse(data.decode("utf-8"), theirs)
        except (text_format.ParseError, UnicodeDecodeError):
            continue  # Python refuses it; the tables above say what Triton does
        assert ours is not None, f"{path}: Python's text_format accepts it, we do not"
        assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
            deterministic=True
        ), path
        compared += 1
    assert compared > 400


# Spellings that exercise the tokenizer: each mutation inserts, deletes or overwrites one.
PIECES = [
    *" \t\n{}[]<>:;,-+.\"'\\#/0178xXeEfFuU_",
    "\x00", "\x01", "\x7f", "\u00a0", "\udcff", "- ", "0x", "\\x", "\\u", "inf", "nan",
    "true", "t", "01", "1e3", ".5",
]  # fmt: skip


def _mutations(seed: int, count: int) -> list[bytes]:
    """Lexical mutations of the fixture configs that parse (no field newer than 2.51,
    no repository agents: an empty agents block crashes tritonserver 2.51)."""
    rng = random.Random(seed)
    sources = []
    for path in CONFIGS:
        data = path.read_bytes()
        if b"model_metrics" in data or b"model_repository_agents" in data:
            continue
        if parse_config(data).config is not None:
            sources.append(data)
    mutated = []
    for _ in range(count):
        data = bytearray(rng.choice(sources))
        for _ in range(rng.randint(1, 2)):
            at = rng.randint(0, len(data))
            piece = rng.choice(PIECES).encode("utf-8", "surrogateescape")
            operation = rng.random()
            if operation < 0.5:
                data[at:at] = piece
            elif operation < 0.75:
                del data[at : at + rng.randint(1, 2)]
            else:
                data[at : at + len(piece)] = piece
        mutated.append(bytes(data))
    return mutated


def test_lexical_mutations_decide_like_tritonserver(tmp_path: Path) -> None:
    server = _server()
    cases = _mutations(20250101, 600)
    repository = tmp_path / "repo"
    for index, data in enumerate(cases):
        (repository / f"x{index}" / "1").mkdir(parents=True)
        (repository / f"x{index}" / "config.pbtxt").write_bytes(data)
    verdicts = server.validate(repository, timeout=300)
    judged = wrong = 0
    report = []
    for index, data in enumerate(cases):
        verdict = verdicts[f"x{index}"]
        if not verdict.decided and verdict.status != "backend_missing":
            continue
        judged += 1
        triton_parses = "failed to read text proto" not in verdict.message
        if (parse_config(data).config is not None) != triton_parses:
            wrong += 1
            report.append(f"{data!r}: tritonserver {'parses' if triton_parses else 'refuses'} it")
    assert judged > 500
    assert not wrong, "\n".join(report)
