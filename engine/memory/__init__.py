"""Curated long-term memory: MEMORY.md / USER.md, the approval queue and the model's memory tool."""

from engine.memory.files import MemoryFileError
from engine.memory.gate import ApprovalDecision, ApprovalRequest, GateOutcome, MemoryWriteGate
from engine.memory.pending import PendingQueue, PendingRecord
from engine.memory.store import MemorySnapshot, MemoryStore, Usage
from engine.memory.tool import MEMORY_GUIDANCE, MEMORY_TOOL_SCHEMA, MemoryTool

__all__ = [
    "MEMORY_GUIDANCE",
    "MEMORY_TOOL_SCHEMA",
    "ApprovalDecision",
    "ApprovalRequest",
    "GateOutcome",
    "MemoryFileError",
    "MemorySnapshot",
    "MemoryStore",
    "MemoryTool",
    "MemoryWriteGate",
    "PendingQueue",
    "PendingRecord",
    "Usage",
]
