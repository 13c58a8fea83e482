"""The demo's lifetime: a temporary seeded home, the scripted model on loopback, then clean-up.

``demo_home()`` yields the home; the app is pointed at it exactly as at a real one (its
``config.yaml`` names an OpenAI-compatible ``base_url`` on 127.0.0.1, so no key is needed).
Nothing is written outside the temporary folder, which is removed on exit.
"""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import yaml

from engine import clock
from hermes_tui.demo.model import chat_reply, side_reply
from hermes_tui.demo.seed import MODEL, seed_home
from hermes_tui.loopback_llm import LoopbackLLM


# Shown above the empty chat when the demo opens: what to try first.
DEMO_GUIDE = (
    "**Demo mode** — a temporary home and a scripted local model; nothing leaves this machine.\n\n"
    "- Say *remember that …*: write approval is on, so the memory write asks first (F3: the queue).\n"
    "- **F7** browses the sessions (a compression lineage, a branch); **ctrl+f** searches them — "
    "try `迁移` or `release`.\n"
    "- `/help` lists every command; **ctrl+p** opens the palette."
)

TOKENS_PER_SECOND = 120.0  # fast enough to feel live, slow enough to watch the reply stream
DEMO_WINDOW = 8_000  # tokens; the system prompt and tools take ~1,300


@dataclass
class Demo:
    home: Path
    server: LoopbackLLM


def demo_config(base_url: str, theme: str = "hermes-dark") -> dict:
    """Write approval on so the model's memory writes wait for the user; a window small enough that
    the demo's short messages reach past what compression keeps, so /compress after a few messages
    really compresses (with 32k the whole conversation fit in the kept tail)."""
    return {
        "model": {"provider": "openai", "name": MODEL, "base_url": base_url, "context_length": DEMO_WINDOW},
        "memory": {"write_approval": True},
        "compression": {"protect_first_n": 1},  # keep only the first message: the welcome is summarized too
        "display": {"theme": theme},
    }


@contextmanager
def demo_home(*, tokens_per_second: float | None = TOKENS_PER_SECOND, theme: str = "hermes-dark") -> Iterator[Demo]:
    """A seeded temporary home served by the scripted model; both gone when the block ends."""
    folder = Path(tempfile.mkdtemp(prefix="hermes-demo-"))
    try:
        home = folder / "home"
        seed_home(home, clock.now())
        with LoopbackLLM(responder=chat_reply, side_responder=side_reply, tokens_per_second=tokens_per_second) as llm:
            config = demo_config(llm.base_url_openai, theme)
            (home / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
            yield Demo(home, llm)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
