"""How long a model call may keep the user waiting: for its first event, between events, in all.

A provider that takes the request and then sends nothing, or only SSE keep-alive comments,
would otherwise hold the turn for as long as the connection stays open (the socket's own read
timeout never fires while comments keep arriving). The limits live under ``model.timeouts``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from engine.errors import ConfigError

KEY = "model.timeouts"
# The SDK's own socket timeout sits this far behind ours: ours decides, and a read left
# behind by a timeout or a cancel still ends on its own.
TRANSPORT_MARGIN_S = 10.0


@dataclass(frozen=True)
class StreamTimeouts:
    """Seconds; every model call is bounded by them (an ``auxiliary.<task>`` model of its own
    by the defaults: its section carries no ``timeouts``)."""

    first_byte: float = 60.0  # request sent → the reply's first event
    idle: float = 60.0  # between two events; keep-alive comments and pings do not count
    total: float = 900.0  # the whole call, retries included

    @classmethod
    def from_config(cls, section: Mapping[str, Any] | None) -> StreamTimeouts:
        """The limits of a ``model.timeouts`` mapping; a missing key keeps its default."""
        if section is not None and not isinstance(section, Mapping):
            raise ConfigError(f"{KEY} must be a mapping of first_byte, idle and total, not {section!r}.")
        values: dict[str, float] = {}
        for name, value in (section or {}).items():
            if name not in cls.__dataclass_fields__ or value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ConfigError(f"{KEY}.{name} is {value!r}; expected a positive number of seconds.")
            values[name] = float(value)
        return cls(**values)

    @property
    def transport(self) -> float:
        """The SDK's socket timeout: a backstop behind the first-byte and idle limits."""
        return max(self.first_byte, self.idle) + TRANSPORT_MARGIN_S


def seconds(value: float) -> str:
    """``60 s``, ``0.5 s``: a limit as the error messages name it."""
    return f"{value:g} s"
