"""Provider failures, each a one-line message and the exit status it maps to."""

from __future__ import annotations

from engine.errors import HermesError


class ProviderError(HermesError):
    """A model call that failed (exit 1)."""

    exit_code = 1


class MissingKeyError(ProviderError):
    """No API key for a hosted provider: an environment problem (exit 2), names the variable."""

    exit_code = 2


class AuthError(ProviderError):
    """The provider rejected the key (HTTP 401)."""


class ModelNotFoundError(ProviderError):
    """The provider does not know the configured model (HTTP 404)."""


class StreamInterruptedError(ProviderError):
    """The stream broke after part of the reply was already shown, so it cannot be retried."""


class ProviderTimeoutError(ProviderError):
    """The provider kept the reply waiting past one of the ``model.timeouts`` limits."""


def one_line(text: object, limit: int = 200) -> str:
    """``text`` squeezed onto one line and capped, for error messages built from server output."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
