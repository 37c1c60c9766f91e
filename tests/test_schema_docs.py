"""The hover documentation module is generated from protos/model_config.proto and fresh."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from google.protobuf.descriptor import Descriptor
from script_modules import load_script

from pbtxt_lint.schema import model_config_pb2

ROOT = Path(__file__).resolve().parent.parent


def generator() -> ModuleType:
    return load_script("gen_schema_docs")


def test_module_is_fresh() -> None:
    gen = generator()
    fresh = gen.render(gen.extract(gen.PROTO.read_text(encoding="utf-8")))
    assert gen.OUTPUT.read_text(encoding="utf-8") == fresh, "run scripts/gen_schema_docs.py"


def _exists(name: str) -> bool:
    pool = model_config_pb2.DESCRIPTOR.pool
    for find in (pool.FindMessageTypeByName, pool.FindFieldByName, pool.FindEnumTypeByName):
        try:
            find(name)
            return True
        except KeyError:
            pass
    enum, _, value = name.rpartition(".")
    try:
        return value in pool.FindEnumTypeByName(enum).values_by_name
    except KeyError:
        return False


def test_every_name_is_in_the_schema() -> None:
    from pbtxt_lint.lsp.schema_docs import DOCS

    assert [name for name in DOCS if not _exists(name)] == []


def test_every_field_is_documented() -> None:
    """A field added to the .proto without a comment would show an empty hover."""
    from pbtxt_lint.lsp.schema_docs import DOCS

    missing: list[str] = []

    def walk(message: Descriptor) -> None:
        missing.extend(f.full_name for f in message.fields if f.full_name not in DOCS)
        for nested in message.nested_types:
            if not nested.GetOptions().map_entry:
                walk(nested)

    for message in model_config_pb2.DESCRIPTOR.message_types_by_name.values():
        walk(message)
    assert missing == []


def test_extract_reads_leading_and_trailing_comments() -> None:
    gen = generator()
    source = (
        "package p;\n// The message.\nmessage M {\n  // Before.\n  int32 a = 1;  // after\n"
        "\n  // detached\n\n  int32 b = 2;\n  enum E {\n    X = 0;  // the x\n  }\n"
        "  oneof o {\n    // In a oneof.\n    int32 c = 3;\n  }\n"
        "  map<string, string> m = 4;  // map\n}\n"
    )
    assert gen.extract(source) == {
        "p.M": "The message.",
        "p.M.a": "Before. after",
        "p.M.E.X": "the x",
        "p.M.c": "In a oneof.",
        "p.M.m": "map",
    }
