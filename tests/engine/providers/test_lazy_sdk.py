"""Making a provider does not import its SDK (about a second of start-up); the first call does."""

from __future__ import annotations

import ssl
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


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_every_client_verifies_tls_with_the_one_context_built_per_process(kind: str) -> None:
    """Building a TLS context costs ~60 ms of CPU: the turn's and the side calls' clients share
    one, and sharing it never turns certificate checks off."""
    from engine.providers import make_provider

    def context(provider) -> ssl.SSLContext:
        return provider._client._client._transport._pool._ssl_context

    first, second = (make_provider({"provider": kind, "name": "m", "base_url": "https://127.0.0.1:9"})
                     for _ in range(2))
    assert context(first) is context(second)
    assert context(first).verify_mode == ssl.CERT_REQUIRED and context(first).check_hostname
