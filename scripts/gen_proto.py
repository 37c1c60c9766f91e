#!/usr/bin/env python3
"""Regenerate pbtxt_lint/schema/model_config_pb2.py and .pyi from protos/model_config.proto.

Usage: python scripts/gen_proto.py [--out DIR]

The generated files are committed, so users never need protoc. The protoc version is
pinned because the generated code is what decides which protobuf runtimes can import
it: grpcio-tools 1.65.5 bundles protoc 26.1 (Python gencode 5.26.1), the newest
gencode that carries no runtime version check. Its output imports cleanly, without
warnings, on protobuf 3.20.3 through 7.36.2. Gencode from newer protoc calls
ValidateProtobufRuntimeVersion, which rejects any runtime older than the gencode,
and protobuf 6.30/6.31 also warn about or reject gencode from another major version.

grpcio-tools 1.65.5 declares protobuf<6, which clashes with onnx's protobuf needs,
but running protoc does not import protobuf. Install it without its dependencies:

    pip install --no-deps grpcio-tools==1.65.5
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import sys
from pathlib import Path

GRPCIO_TOOLS_VERSION = "1.65.5"
"""Pinned: a different protoc emits different (and less portable) code."""

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "protos"
PROTO_FILE = PROTO_DIR / "model_config.proto"
DEFAULT_OUT = ROOT / "pbtxt_lint" / "schema"
GENERATED = ("model_config_pb2.py", "model_config_pb2.pyi")


class GenerationError(RuntimeError):
    """protoc is missing, is the wrong version, or failed."""


def installed_grpcio_tools() -> str | None:
    """Version of the installed grpcio-tools distribution, or None when absent."""
    try:
        return importlib.metadata.version("grpcio-tools")
    except importlib.metadata.PackageNotFoundError:
        return None


def generate(out_dir: Path) -> list[Path]:
    """Run the pinned protoc on protos/model_config.proto, writing into out_dir."""
    found = installed_grpcio_tools()
    if found != GRPCIO_TOOLS_VERSION:
        raise GenerationError(
            f"needs grpcio-tools=={GRPCIO_TOOLS_VERSION} (found {found or 'none'}); "
            f"install it with: pip install --no-deps grpcio-tools=={GRPCIO_TOOLS_VERSION}"
        )
    # Imported late and dynamically: grpc_tools ships no type information and is
    # only needed here, never at lint time.
    protoc = importlib.import_module("grpc_tools.protoc")
    out_dir.mkdir(parents=True, exist_ok=True)
    # Only our own proto directory on the include path, so the descriptor's file
    # name is "model_config.proto", the same name Triton's own generated code uses.
    args = [
        "grpc_tools.protoc",
        f"--proto_path={PROTO_DIR}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        str(PROTO_FILE),
    ]
    status = protoc.main(args)
    if status != 0:
        raise GenerationError(f"protoc failed with exit status {status}")
    return [out_dir / name for name in GENERATED]


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"output directory (default: {DEFAULT_OUT.relative_to(ROOT)})",
    )
    options = parser.parse_args(argv)
    try:
        written = generate(options.out)
    except GenerationError as error:
        print(f"gen_proto: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
