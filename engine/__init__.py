"""The headless core of hermes-tui: config, store, memory, prompt, providers, agent.

Nothing in this package imports Textual; the UI consumes the events the engine emits.
"""
