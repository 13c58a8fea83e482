"""System prompt layers and snapshot, project context files, prompt caching, and the request view."""
