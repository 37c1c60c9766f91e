"""pbtxt-lint: catch Triton Inference Server model-repository mistakes before deployment."""

from __future__ import annotations

__version__ = "0.1.0"
