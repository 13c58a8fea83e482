"""Error types shared by the engine, each carrying the command-line exit status it maps to.

Exit status contract (DESIGN.md): 1 = refused or not found, 2 = bad usage or environment.
Messages are one sentence naming the file, key or id at fault.
"""

from __future__ import annotations


class HermesError(Exception):
    """Base for every error the engine reports to a person."""

    exit_code: int = 1


class NotFoundError(HermesError):
    """An id, title or entry that does not exist (exit 1)."""

    exit_code = 1


class RefusedError(HermesError):
    """A request understood but refused: ambiguous match, blocked write, over limit (exit 1)."""

    exit_code = 1


class BadInputError(HermesError):
    """Bad usage or a broken environment: bad config, unreadable database (exit 2)."""

    exit_code = 2


class ConfigError(BadInputError):
    """config.yaml is unreadable or holds a bad value; the message names the key or line."""


class StoreError(BadInputError):
    """state.db cannot be opened or is not a Hermes session database."""
