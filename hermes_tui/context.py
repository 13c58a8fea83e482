"""What every command needs: the home, its config and its store, opened once and lazily."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from engine.config import Config, load_config

if TYPE_CHECKING:
    from engine.store import SessionDB


@dataclass
class CommandContext:
    """The resolved home; config and database are opened on first use."""

    home: Path
    _db: "SessionDB | None" = field(default=None, repr=False)

    @cached_property
    def config(self) -> Config:
        return load_config(self.home)

    def check_config(self) -> None:
        """Read config.yaml now: a broken one is the same exit 2 (file and line) for every command,
        including those that would not otherwise read it (``sessions``, ``search``, ``memory pending``)."""
        _ = self.config

    @property
    def db(self) -> "SessionDB":
        if self._db is None:
            from engine.store import SessionDB

            self._db = SessionDB.open_home(self.home)
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
