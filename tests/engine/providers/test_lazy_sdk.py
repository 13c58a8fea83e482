"""Making a provider does not import its SDK (about a second of start-up); the first call does."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import sys
from engine.providers import make_provider
provider = make_provider({{"provider": "{kind}", "name": "m", "base_url": "http://127.0.0.1:9"}})
print("{kind}" in sys.modules)
provider._client
print("{kind}" in sys.modules)
"""


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_sdk_is_imported_on_first_use_only(kind: str) -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(kind=kind)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
