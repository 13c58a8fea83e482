"""The configuration as typed sections: ``config.memory.write_approval``, not ``"memory.write_approval"``.

``Config.data`` is the merged file as read (defaults under the user's values, unknown and
upstream keys included); each section is built from it once, on first use, and kept. The
sections hold our keys only: what upstream or a plugin adds stays in ``data``, where the open
sections (``model`` for the provider resolver, ``auxiliary``) are read whole with ``section``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Generic, Mapping, TypeVar

from engine.config.schema import DEFAULTS
from engine.pricing import PriceTable

S = TypeVar("S")


@dataclass(frozen=True)
class ModelConfig:
    provider: str
    name: str
    base_url: str | None
    api_key_env: str | None
    context_length: int | None
    timeouts: Mapping[str, Any]

    @property
    def label(self) -> str:
        """``name · provider``, as the status bar shows it."""
        return f"{self.name} · {self.provider}"


@dataclass(frozen=True)
class MemoryConfig:
    memory_enabled: bool
    user_profile_enabled: bool
    memory_char_limit: int
    user_char_limit: int
    write_approval: bool
    provider: str  # the external recall provider: "" (none) or "local"
    nudge_interval: int  # user turns between background memory reviews; 0 = never


@dataclass(frozen=True)
class CompressionConfig:
    enabled: bool
    threshold: float
    target_ratio: float
    protect_first_n: int
    protect_last_n: int


@dataclass(frozen=True)
class SessionsConfig:
    auto_prune: bool
    retention_days: int
    vacuum_after_prune: bool
    min_interval_hours: int
    write_json_snapshots: bool


@dataclass(frozen=True)
class PromptCachingConfig:
    cache_ttl: str  # "5m" | "1h"


@dataclass(frozen=True)
class DisplayConfig:
    theme: str
    memory_notifications: str  # "off" | "on" | "verbose"


@dataclass(frozen=True)
class SecurityConfig:
    redact_secrets: bool


@dataclass(frozen=True)
class PricingConfig:
    local_servers_free: bool  # a loopback or localhost base_url costs nothing
    models: Mapping[str, Mapping[str, float]]  # checked by engine.pricing.check_price_table

    def table(self) -> PriceTable:
        """The dated defaults with these entries over them."""
        return PriceTable.from_settings(self.models, self.local_servers_free)


class _Section(Generic[S]):
    """``Config.<name>``: the typed section, built from the merged (hence complete, already
    validated) mapping on first use and then kept on the instance."""

    def __init__(self, cls: type[S]) -> None:
        self.cls = cls
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, config: "Config", owner: type | None = None) -> S:
        values = config.section(self.name)
        built = self.cls(**{f.name: values[f.name] for f in fields(self.cls)})  # type: ignore[call-arg]
        config.__dict__[self.name] = built  # found before this descriptor from now on
        return built


@dataclass(frozen=True)
class Config:
    """The merged configuration of one home; ``load_config`` reads and validates it."""

    home: Path
    data: dict[str, Any] = field(default_factory=lambda: copy.deepcopy(DEFAULTS))

    @property
    def path(self) -> Path:
        return self.home / "config.yaml"

    def get(self, dotted: str, default: Any = None) -> Any:
        """The value at a dotted key of the file, for keys no section names (unknown, upstream's)."""
        node: Any = self.data
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def section(self, name: str) -> dict[str, Any]:
        """A whole section as read, upstream's keys included (``model`` for the provider resolver)."""
        value = self.data.get(name)
        return value if isinstance(value, dict) else {}

    model = _Section(ModelConfig)
    memory = _Section(MemoryConfig)
    compression = _Section(CompressionConfig)
    sessions = _Section(SessionsConfig)
    prompt_caching = _Section(PromptCachingConfig)
    display = _Section(DisplayConfig)
    security = _Section(SecurityConfig)
    pricing = _Section(PricingConfig)
