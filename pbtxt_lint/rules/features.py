"""Rules of this family (see rules/__init__.py)."""

from __future__ import annotations
