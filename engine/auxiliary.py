"""The auxiliary model for side jobs: compression summaries, search summaries, reviews, titles.

Each job may run on a cheaper model (``auxiliary.<task>: {provider, name, base_url}``); keys left
null inherit the main model, and so does upstream's ``provider: auto`` (or ``main``). Upstream's
spellings are read too: ``model`` for the name, ``title_generation`` for the title task. A side
job must never stop the user's work, so a missing key or a bad section gives ``None`` (the caller
falls back: raw excerpts, no title, no review) and the reason goes to ``on_problem`` instead of
raising.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable, Mapping

from engine.config import Config
from engine.errors import ConfigError, HermesError
from engine.providers import Provider, canonical_provider, make_provider

TASKS = ("compression", "session_search", "background_review", "title")
# Keys an auxiliary section may set; upstream spells the model name "model", we also accept it.
_KEYS = ("provider", "name", "base_url", "api_key_env", "api_key", "api_mode")
# Upstream's section name for a task, read when ours is left null.
_UPSTREAM_TASKS = {"title": "title_generation"}
# Upstream's provider values for "the main model's provider".
_MAIN = ("auto", "main")


def _section(config: Config, task: str) -> dict[str, Any]:
    """``auxiliary.<task>``, else upstream's section for it; the chosen one with ``auto`` as null."""
    auxiliary = config.section("auxiliary")  # open: upstream's task names and keys are read too
    section = auxiliary.get(task) or {}  # load_config already refused a non-mapping
    upstream = auxiliary.get(_UPSTREAM_TASKS.get(task, task))
    if not any(section.values()) and isinstance(upstream, dict):
        section = upstream
    provider = section.get("provider")
    if isinstance(provider, str) and canonical_provider(provider) in _MAIN:
        section = {**section, "provider": None}
    return section


def auxiliary_model_config(config: Config, task: str) -> dict[str, Any] | None:
    """The ``model:``-shaped section for ``task``, or ``None`` when it is simply the main model.

    A different provider starts from a clean slate (the main model's base_url and key variable
    belong to the main provider); the same provider inherits what the section leaves null.
    """
    if task not in TASKS:
        raise ValueError(f"unknown auxiliary task {task!r}; expected one of {', '.join(TASKS)}")
    section = _section(config, task)
    own = {key: section.get(key) for key in _KEYS}
    own["name"] = own["name"] or section.get("model")
    if not any(own.values()):
        return None
    main = dict(config.section("model"))
    same = canonical_provider(str(own["provider"])) == canonical_provider(str(main.get("provider")))
    if own["provider"] and not same:
        if not own["name"]:
            raise ConfigError(f"{config.path}: auxiliary.{task}.name is needed when its provider differs from model.provider.")
        base: dict[str, Any] = {"provider": own["provider"]}
    else:
        base = {key: main.get(key) for key in _KEYS}
    base.update({key: value for key, value in own.items() if value})
    return base


def auxiliary_provider(
    config: Config,
    task: str,
    main: Provider | None,
    *,
    env: Mapping[str, str] = os.environ,
    on_problem: Callable[[str], None] | None = None,
) -> Provider | None:
    """The provider for ``task``: the configured auxiliary model, else the main model.

    ``main`` is the live agent's provider; ``None`` (a command with no agent, or an agent
    without a key) makes the main model from config. Any key or config problem gives ``None``.
    """
    try:
        model_cfg = auxiliary_model_config(config, task)
        if model_cfg is None:
            if main is not None:
                return main
            model_cfg = dict(config.section("model"))
        return make_provider(model_cfg, env=env, cache_ttl=config.prompt_caching.cache_ttl)
    except HermesError as exc:
        if on_problem is not None:
            on_problem(f"auxiliary.{task} is unavailable ({exc}); falling back.")
        return None


class BackgroundJobs:
    """Daemon threads for side jobs, so they never hold up a turn, with one bounded ``join``.

    Daemon: a job still running when the process exits is dropped, never waited for forever.
    ``join(timeout)`` lets a short-lived command (``chat -q``) give its jobs a bounded time.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def start(self, target: Callable[..., None], *args: Any) -> threading.Thread:
        thread = threading.Thread(target=target, args=args, name=self.name, daemon=True)
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return thread

    def busy(self) -> bool:
        with self._lock:
            return any(t.is_alive() for t in self._threads)

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds in total; True when every job has finished."""
        deadline = time.monotonic() + timeout
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in threads)
