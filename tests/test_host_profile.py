"""The image table (which NGC image ships which backend per release) and the host profile
built from `container` and `backends`."""

from __future__ import annotations

from pbtxt_lint.settings import Settings
from pbtxt_lint.targets import Release, resolve
from pbtxt_lint.triton.backends import (
    BACKENDS,
    IMAGES,
    PLATFORMS,
    host_backends,
    images_shipping,
    shipped_backends,
)


def release(tag: str) -> Release:
    return resolve(tag).release


def test_the_standard_image_per_release() -> None:
    full = {"onnxruntime", "tensorrt", "pytorch", "openvino", "python", "dali", "fil"}
    assert full | {"tensorflow"} <= (shipped_backends("py3", release("24.10")) or set())
    assert "tensorflow" not in (shipped_backends("py3", release("25.03")) or {"tensorflow"})
    assert "onnxruntime" not in (shipped_backends("py3", release("24.02")) or {"onnxruntime"})
    assert full <= (shipped_backends("py3", None) or set()), "None: the newest release"
    assert shipped_backends("py3", release("21.08")) is None, "before build.py's list: unknown"


def test_the_llm_and_framework_images() -> None:
    assert shipped_backends("vllm-python-py3", release("24.10")) == {"vllm", "python"}
    assert shipped_backends("trtllm-python-py3", release("24.10")) == {"tensorrtllm", "python"}
    assert shipped_backends("vllm-python-py3", release("23.09")) is None, "first in 23.10"
    assert shipped_backends("tf2-python-py3", release("25.03")) is None, "no TensorFlow image"
    assert shipped_backends("pyt-python-py3", release("24.10")) == {"pytorch", "python"}
    assert shipped_backends("custom", release("24.10")) == frozenset()
    assert images_shipping("fastertransformer", None) == []
    assert images_shipping("vllm", release("24.10")) == ["vllm-python-py3"]


def test_every_published_backend_says_where_it_comes_from() -> None:
    for entry in BACKENDS.values():
        assert entry.published, entry.name
        assert entry.name not in PLATFORMS, "a platform is not a backend"
        for shipped in entry.ships_in:
            assert shipped.image in IMAGES, (entry.name, shipped.image)


def test_no_profile_means_an_unknown_host() -> None:
    assert host_backends(Settings()) is None
    assert host_backends(Settings(gpus=1)) is None, "GPUs say nothing about backends"


def test_declared_backends_extend_the_standard_image() -> None:
    host = host_backends(Settings(backends=frozenset({"stateful"}), target=release("24.10")))
    assert host is not None and host.image == "py3" and host.complete
    assert {"stateful", "tensorflow", "onnxruntime"} <= host.names
    assert not host.maybe


def test_an_undeclared_release_leaves_release_dependent_backends_open() -> None:
    host = host_backends(Settings(container="py3"))
    assert host is not None and not host.release_declared
    assert "tensorflow" in host.maybe and "tensorflow" not in host.names
    assert "onnxruntime" in host.names, "taken at the newest release"
    host = host_backends(Settings(container="tf2-python-py3"))
    assert host is not None and host.release.container == "25.02", "the image's last release"
    assert host.names == {"tensorflow", "python"}


def test_a_custom_image_has_only_the_declared_backends() -> None:
    host = host_backends(Settings(container="custom", backends=frozenset({"python"})))
    assert host is not None and host.names == {"python"} and host.complete
