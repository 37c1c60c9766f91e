"""What the user asked for, in one typed object built before any work starts."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Settings:
    """Target host and selection settings (CLI flags, later also pyproject.toml).

    The defaults are Triton's own: auto-complete on, `config.pbtxt`, and an unknown
    target host (so GPU placement problems are warnings, not errors).
    """

    auto_complete: bool = True
    model_config_name: str | None = None
    config_only: bool = False
    gpus: int | None = None
    select: frozenset[str] = field(default_factory=frozenset)
    ignore: frozenset[str] = field(default_factory=frozenset)

    def wants(self, code: str) -> bool:
        """Is `code` selected? Codes match exactly or by prefix (`PL2`, `PL20`)."""
        if self.select and not any(code.startswith(p) for p in self.select):
            return False
        return not any(code.startswith(p) for p in self.ignore)
