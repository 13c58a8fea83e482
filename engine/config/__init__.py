"""Hermes home resolution and ``config.yaml``: defaults, validation, typed sections, key-preserving saves.

The file is the user's: unknown keys are kept, upstream's own forms are read as upstream reads
them without rewriting them, a saved value touches only its own line when it can (so comments
survive), and a bad value is reported with the dotted key at fault. ``schema`` declares the
keys, ``load`` reads a home, ``typed`` gives the sections as dataclasses, ``save`` writes one value.
"""

from engine.config.load import load_config, read_yaml, resolve_home
from engine.config.save import set_config_value
from engine.config.schema import DEFAULTS
from engine.config.typed import (
    CompressionConfig,
    Config,
    DisplayConfig,
    MemoryConfig,
    ModelConfig,
    PromptCachingConfig,
    SecurityConfig,
    SessionsConfig,
)

__all__ = [
    "DEFAULTS",
    "CompressionConfig",
    "Config",
    "DisplayConfig",
    "MemoryConfig",
    "ModelConfig",
    "PromptCachingConfig",
    "SecurityConfig",
    "SessionsConfig",
    "load_config",
    "read_yaml",
    "resolve_home",
    "set_config_value",
]
