"""Subcommands of the ``hermes-tui`` command line, one module each.

Each module exposes ``register(subparsers)``, which adds its parser and sets ``func`` to a
callable ``(args, ctx) -> int`` returning the exit status.
"""
