"""A loopback fake LLM server speaking the Anthropic and OpenAI wire formats (stdlib only, no UI)."""

from hermes_tui.loopback_llm.script import (
    CutStream,
    Hold,
    HttpError,
    KeepAliveDrip,
    MalformedSSE,
    Reply,
    Responder,
    Silent,
    Step,
    StreamError,
    ToolCallSpec,
    Usage,
    common_prefix_len,
)
from hermes_tui.loopback_llm.server import LoopbackLLM, Recorded

__all__ = [
    "CutStream",
    "Hold",
    "HttpError",
    "KeepAliveDrip",
    "LoopbackLLM",
    "MalformedSSE",
    "Recorded",
    "Reply",
    "Responder",
    "Silent",
    "Step",
    "StreamError",
    "ToolCallSpec",
    "Usage",
    "common_prefix_len",
]
