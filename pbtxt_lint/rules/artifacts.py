"""PL6xx: the config against the model files (see rules/__init__.py)."""

from __future__ import annotations
