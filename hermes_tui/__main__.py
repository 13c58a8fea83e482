"""``python -m hermes_tui``: the same as the ``hermes-tui`` console script."""

from hermes_tui.cli import run

run()
