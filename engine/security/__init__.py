"""Security checks shared by memory writes, context files and approval replays."""

from engine.security.threats import ThreatMatch, describe, first_threat, scan, scan_entries, seam_hits

__all__ = ["ThreatMatch", "describe", "first_threat", "scan", "scan_entries", "seam_hits"]
