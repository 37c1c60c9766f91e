"""The serving image's Python packages, declared by the user (`python-packages`).

Without it, pbtxt-lint cannot know what `pip install` added to the Triton image, so a
third-party import that no environment archive provides is only a fact about the host.
With it (a requirements file or the output of `pip freeze` / `pip list --format=freeze`
run in the image), a module no declared distribution provides is a verdict.

A distribution's import names are not in such a file, so they are inferred: the
normalised distribution name (`typing-extensions` -> `typing_extensions`), the name
without a packaging prefix or suffix (`python-`, `-cpu`, `-gpu`, `-headless`...), and a
table of well-known distributions whose modules are named otherwise (`Pillow` -> `PIL`,
`opencv-python` -> `cv2`). A module the inference misses can be declared as a line of
its own (`cv2` is a valid requirement line naming a distribution `cv2`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = ["HostPackages", "ProfileError", "modules_of", "read_host_packages"]

MAX_BYTES = 4 << 20
MAX_INCLUDES = 16
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EGG = re.compile(r"#egg=([A-Za-z0-9][A-Za-z0-9._-]*)")
_AFFIXES = re.compile(
    r"^(?:python[-_]|py[-_])|[-_](?:python|cpu|gpu|headless|contrib|binary|nightly|"
    r"cu\d+x?|cuda\d*x?|rocm\d*)$"
)
KNOWN_MODULES: dict[str, tuple[str, ...]] = {
    "pillow": ("PIL",),
    "pillow-simd": ("PIL",),
    "opencv-python": ("cv2",),
    "opencv-python-headless": ("cv2",),
    "opencv-contrib-python": ("cv2",),
    "opencv-contrib-python-headless": ("cv2",),
    "scikit-learn": ("sklearn",),
    "scikit-image": ("skimage",),
    "pyyaml": ("yaml", "_yaml"),
    "ruamel-yaml": ("ruamel",),
    "beautifulsoup4": ("bs4",),
    "protobuf": ("google",),
    "googleapis-common-protos": ("google",),
    "python-dateutil": ("dateutil",),
    "pycryptodome": ("Crypto",),
    "pycryptodomex": ("Cryptodome",),
    "pyjwt": ("jwt",),
    "pymupdf": ("fitz", "pymupdf"),
    "python-multipart": ("multipart", "python_multipart"),
    "attrs": ("attr", "attrs"),
    "pyzmq": ("zmq",),
    "grpcio": ("grpc",),
    "grpcio-tools": ("grpc_tools",),
    "grpcio-status": ("grpc_status",),
    "pyopenssl": ("OpenSSL",),
    "dnspython": ("dns",),
    "websocket-client": ("websocket",),
    "pyserial": ("serial",),
    "fonttools": ("fontTools",),
    "absl-py": ("absl",),
    "paddlepaddle": ("paddle",),
    "paddlepaddle-gpu": ("paddle",),
    "faiss-cpu": ("faiss",),
    "faiss-gpu": ("faiss",),
    "onnxruntime-gpu": ("onnxruntime",),
    "onnxruntime-openvino": ("onnxruntime",),
    "tensorflow-cpu": ("tensorflow",),
    "tensorflow-gpu": ("tensorflow",),
    "tf-keras": ("tf_keras",),
    "cuda-python": ("cuda",),
    "nvidia-dali-cuda110": ("nvidia",),
    "nvidia-dali-cuda120": ("nvidia",),
    "setuptools": ("setuptools", "pkg_resources", "_distutils_hack", "distutils"),
    "msgpack-python": ("msgpack",),
    "python-json-logger": ("pythonjsonlogger",),
    "scikit-build": ("skbuild",),
    "pywin32": ("win32api", "win32con", "pywintypes"),
    "sentence-transformers": ("sentence_transformers",),
    "llama-cpp-python": ("llama_cpp",),
    "mecab-python3": ("MeCab",),
    "opencv-python-rolling": ("cv2",),
    "pytorch-lightning": ("pytorch_lightning",),
    "lightning": ("lightning", "lightning_fabric", "pytorch_lightning"),
    "jax-cuda12-plugin": ("jax_cuda12_plugin",),
    "cupy-cuda11x": ("cupy",),
    "cupy-cuda12x": ("cupy",),
    "ml-dtypes": ("ml_dtypes",),
    "tritonclient": ("tritonclient",),
}
"""Distributions (normalised names) whose top-level modules are not their name."""


class ProfileError(Exception):
    """The file cannot be read; the message names it."""


@dataclass(frozen=True)
class HostPackages:
    source: Path
    distributions: frozenset[str]
    """Normalised distribution names (PEP 503: lower case, runs of -_. as -)."""
    modules: frozenset[str]
    """Top-level import names they are taken to provide."""


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def modules_of(distribution: str) -> frozenset[str]:
    """The import names a distribution is taken to provide."""
    name = normalize(distribution)
    found = set(KNOWN_MODULES.get(name, ()))
    for candidate in (name, _AFFIXES.sub("", name), _AFFIXES.sub("", _AFFIXES.sub("", name))):
        if candidate:
            found.add(candidate.replace("-", "_"))
            found.add(candidate.replace("-", "_").lower())
    return frozenset(found)


def read_host_packages(path: Path) -> HostPackages:
    """The packages a requirements / pip-freeze file declares; raises `ProfileError`."""
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as error:
        raise ProfileError(f"{path}: cannot read: {error.strerror or error}") from None
    return _read(path.resolve(), stamp)


@lru_cache(maxsize=8)
def _read(path: Path, stamp: int) -> HostPackages:
    distributions: set[str] = set()
    _collect(path, distributions, set())
    modules: set[str] = set()
    for distribution in distributions:
        modules |= modules_of(distribution)
    return HostPackages(path, frozenset(distributions), frozenset(modules))


def _collect(path: Path, into: set[str], seen: set[Path]) -> None:
    if path in seen or len(seen) >= MAX_INCLUDES:
        return
    seen.add(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES)
    except OSError as error:
        raise ProfileError(f"{path}: cannot read: {error.strerror or error}") from None
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("-r ", "--requirement ", "-r", "--requirement=")):
            target = re.sub(r"^(?:-r|--requirement)[ =]?", "", line).strip()
            if target:
                _collect((path.parent / target).resolve(), into, seen)
            continue
        if line.startswith(("-e ", "--editable ")):
            egg = _EGG.search(line)
            if egg:
                into.add(normalize(egg.group(1)))
            continue
        if line.startswith("-"):
            continue  # --index-url, --hash and other pip options
        match = _NAME.match(line)
        if match:
            # `name==1.0`, `name[extra]>=1`, `name @ url`, conda's `name=1.0=build`
            into.add(normalize(match.group(1).split("=", 1)[0]))
