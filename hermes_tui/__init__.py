"""hermes-tui: the Textual front end and command line over the ``engine`` package."""

__version__ = "0.1.0"
