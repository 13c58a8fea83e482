"""The Hermes-compatible session store (``state.db``): sessions, messages, search, lineage."""

from engine.store.db import SessionDB
from engine.store.lineage import LineageMoved
from engine.store.maintenance import Removal
from engine.store.models import MATCH_END, MATCH_START, SearchHit, Session, StoredMessage, TreeNode
from engine.store.writer import TranscriptWriter

__all__ = [
    "LineageMoved",
    "MATCH_END",
    "MATCH_START",
    "Removal",
    "SearchHit",
    "Session",
    "SessionDB",
    "StoredMessage",
    "TranscriptWriter",
    "TreeNode",
]
