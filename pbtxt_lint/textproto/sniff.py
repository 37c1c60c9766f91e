"""Tell a config file that is not text at all from one with mistakes in it.

A binary file named config.pbtxt (a ModelConfig a script saved with
`SerializeToString()`, a UTF-16 file from Windows PowerShell, an archive or a model
copied to the wrong name) is refused by Triton at its first byte, and a text parser
would report every byte after it. `sniff` looks at the first bytes (and, for a
protobuf, decodes the file) and says what the file looks like, so the user gets one
finding that says what the file is and how to get the text Triton reads.

The verdict is only a description: `parse_config` reports it instead of the parse
problems when Triton refuses the file anyway (always, when it holds a NUL byte;
otherwise when the text parse fails), never for a file Triton would read.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint.echo import shorten

if TYPE_CHECKING:
    from pbtxt_lint.schema import ModelConfig

SAMPLE = 8192
"""Bytes looked at to judge a file (git judges text or binary on its first 8000)."""
_TEXT_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n\v\f\r"
_CONTROLS = bytes([*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F])
_MIN_CONTROLS = 4
_CONTROL_SHARE = 0.05
"""Text, in any encoding but UTF-16/32, has next to no C0 control bytes; random or
compressed bytes have about 11% (28 of 256 values), UTF-16 text about 50% (NULs)."""
_NAME_LIMIT = 256

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"PK\x03\x04", "a ZIP archive (a PyTorch model, an .npz or a .zip file)"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x7fELF", "an ELF executable or shared library"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"\x93NUMPY", "a NumPy array (.npy)"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file (a Keras model?)"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file"),
    (b"BZh", "a bzip2-compressed file"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"ftrt", "a TensorRT plan"),
    (b"ptrt", "a TensorRT plan (TensorRT 8.5 or older)"),
)
_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


@dataclass(frozen=True)
class NotText:
    """What a file that is not text looks like, and how to get the text Triton reads."""

    what: str  # "a ModelConfig in protobuf's binary encoding (name "m", ...)"
    kind: str  # "binary-config", "utf-16" or "binary"
    config: ModelConfig | None = None  # the decoded ModelConfig, for `convert`

    @property
    def message(self) -> str:
        if self.kind == "binary-config":
            return (
                f"the file is {self.what}, not protobuf text format; Triton reads a model "
                "configuration only as text and refuses it"
            )
        if self.kind == "utf-16":
            return (
                f"the file is {self.what}; Triton reads a model configuration only as "
                "UTF-8 text and refuses it"
            )
        return (
            f"the file is not text but {self.what}; Triton reads a model configuration "
            "only as protobuf text format and refuses it"
        )

    def hint(self, path: Path | None = None) -> str:
        """The fix; `path` is the file, for a command the user can paste."""
        if self.kind == "binary-config":
            shown = shlex.quote(_relative(path)) if path is not None else "config.pbtxt"
            return (
                f"write it as text: `pbtxt-lint convert {shown} --to pbtxt -o {shown}` "
                "(a script should write text_format.MessageToString(config), not "
                "config.SerializeToString())"
            )
        if self.kind == "utf-16":
            return (
                "save it as UTF-8 (Windows PowerShell's `>` and Out-File write UTF-16: use "
                "`Out-File -Encoding utf8`, or `iconv -f UTF-16 -t UTF-8`)"
            )
        return "put the model configuration (protobuf text format) in this file"


def _relative(path: Path) -> str:
    """`path` relative to the working folder when inside it (as reports show it)."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative


def sniff(data: bytes) -> NotText | None:
    """What `data` is if it is not text; None for text (however broken)."""
    sample = data[:SAMPLE]
    strange = sample.translate(None, _TEXT_BYTES)
    if not strange:
        return None  # printable ASCII only: the common case, decided in microseconds
    controls = len(strange.translate(None, bytes(range(0x80, 0x100))))
    if controls == 0:
        return None  # UTF-8 or a legacy 8-bit encoding: text
    config = binary_model_config(data)
    if config is not None:
        return NotText(describe_config(config), "binary-config", config)
    if controls < _MIN_CONTROLS or controls < _CONTROL_SHARE * len(sample):
        return None  # a few stray control characters: the parser reports each
    for bom, encoding in _BOMS:
        if sample.startswith(bom):
            return NotText(
                f"{encoding} text (it starts with a {encoding} byte-order mark)", "utf-16"
            )
    for magic, what in _MAGIC:
        if sample.startswith(magic):
            return NotText(what, "binary")
    if _utf16_without_bom(sample):
        return NotText("UTF-16 text (without a byte-order mark)", "utf-16")
    return NotText(f"binary data ({_size(len(data))}, starting with {_hex(sample[:8])})", "binary")


def binary_model_config(data: bytes) -> ModelConfig | None:
    """`data` decoded as a binary-serialized ModelConfig, if it plausibly is one.

    Random bytes often decode as some protobuf message, so the decoded config must
    account for every byte (no unknown field, nothing given twice and merged) and
    carry a name, platform, backend or tensor name that reads as text.
    """
    from google.protobuf.message import DecodeError

    from pbtxt_lint.schema import ModelConfig

    config = ModelConfig()
    try:
        config.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError, RecursionError):
        return None
    config.DiscardUnknownFields()
    if config.ByteSize() != len(data):
        return None
    texts = [config.name, config.platform, config.backend]
    texts += [tensor.name for tensor in config.input]
    texts += [tensor.name for tensor in config.output]
    present = [text for text in texts if text]
    if not present:
        return None
    if not all(len(text) <= _NAME_LIMIT and text.isprintable() for text in present):
        return None
    return config


def describe_config(config: ModelConfig) -> str:
    """The config in a few words: its names and how many inputs and outputs it has."""
    parts = [
        f'{field} "{shorten(value)}"'
        for field, value in (
            ("name", config.name),
            ("platform", config.platform),
            ("backend", config.backend),
        )
        if value
    ]
    for word, tensors in (("input", config.input), ("output", config.output)):
        if tensors:
            parts.append(f"{len(tensors)} {word}{'' if len(tensors) == 1 else 's'}")
    return f"a ModelConfig in protobuf's binary encoding ({', '.join(parts)})"


def _utf16_without_bom(sample: bytes) -> bool:
    """ASCII text in UTF-16: every other byte is NUL."""
    pairs = len(sample) // 2
    if pairs < 4:
        return False
    even, odd = sample[0 : pairs * 2 : 2], sample[1 : pairs * 2 : 2]
    return any(
        half.count(0) >= 0.9 * pairs and other.count(0) <= 0.1 * pairs
        for half, other in ((odd, even), (even, odd))
    )


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count / 1024 / 1024:.1f} MiB"


def _hex(head: bytes) -> str:
    return " ".join(f"{byte:02x}" for byte in head)
