"""What a request cost and what the prompt cache saved, from a per-model price table.

The built-in prices are list prices of common Anthropic and OpenAI models as of ``PRICES_AS_OF``;
``pricing.models`` in ``config.yaml`` replaces or adds entries (prices change, and so do the
models people run). A server on this machine (a loopback or ``localhost`` ``base_url``) costs
nothing unless ``pricing.local_servers_free`` is off (a local proxy in front of a paid API).
All figures are estimates: the provider's bill is the truth.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from engine.errors import ConfigError

PRICES_AS_OF = "2025-11-01"
PER = 1_000_000  # prices are US dollars per million tokens
PRICE_KEYS = ("input", "output", "cache_read", "cache_write")
REQUIRED_KEYS = ("input", "output")
LOCAL_SERVER = "local server"  # what a free local server is priced as


@dataclass(frozen=True)
class ModelPrice:
    """US dollars per million tokens. ``cache_write`` is Anthropic's 5-minute write price; OpenAI
    bills no extra for writing its cache, so there it equals ``input``."""

    input: float
    output: float
    cache_read: float
    cache_write: float

    @classmethod
    def of(cls, entry: Mapping[str, float]) -> "ModelPrice":
        """An entry of the table; a missing cache price is the input price (no discount, no surcharge)."""
        return cls(float(entry["input"]), float(entry["output"]), float(entry.get("cache_read", entry["input"])),
                   float(entry.get("cache_write", entry["input"])))


def _anthropic(input: float, output: float) -> ModelPrice:
    """Anthropic's rule: cache reads cost 0.1× input, 5-minute writes 1.25×."""
    return ModelPrice(input, output, round(input * 0.1, 6), round(input * 1.25, 6))


def _openai(input: float, output: float, cache_read: float) -> ModelPrice:
    return ModelPrice(input, output, cache_read, input)


DEFAULT_PRICES: dict[str, ModelPrice] = {
    "claude-opus-4-5": _anthropic(5.0, 25.0),
    "claude-opus-4-1": _anthropic(15.0, 75.0),
    "claude-opus-4": _anthropic(15.0, 75.0),
    "claude-sonnet-4-6": _anthropic(3.0, 15.0),
    "claude-sonnet-4-5": _anthropic(3.0, 15.0),
    "claude-sonnet-4": _anthropic(3.0, 15.0),
    "claude-3-7-sonnet": _anthropic(3.0, 15.0),
    "claude-haiku-4-5": _anthropic(1.0, 5.0),
    "claude-3-5-haiku": _anthropic(0.8, 4.0),
    "gpt-5": _openai(1.25, 10.0, 0.125),
    "gpt-5-mini": _openai(0.25, 2.0, 0.025),
    "gpt-5-nano": _openai(0.05, 0.40, 0.005),
    "gpt-4.1": _openai(2.0, 8.0, 0.50),
    "gpt-4.1-mini": _openai(0.40, 1.60, 0.10),
    "gpt-4.1-nano": _openai(0.10, 0.40, 0.025),
    "gpt-4o": _openai(2.50, 10.0, 1.25),
    "gpt-4o-mini": _openai(0.15, 0.60, 0.075),
    "o3": _openai(2.0, 8.0, 0.50),
    "o3-mini": _openai(1.10, 4.40, 0.55),
    "o4-mini": _openai(1.10, 4.40, 0.275),
}


def check_price_table(path: Path, value: Any) -> None:
    """``pricing.models`` as ``config.yaml`` must hold it; the first problem raises ``ConfigError``
    naming the file and the dotted key."""
    if value is None:
        return
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: pricing.models must be a mapping of model name to prices, not {value!r}.")
    for model, entry in value.items():
        key = f"pricing.models.{model}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{path}: {key} must be a mapping like {{input: 3.0, output: 15.0}}, not {entry!r}.")
        unknown = sorted(str(k) for k in entry if k not in PRICE_KEYS)
        if unknown:
            raise ConfigError(f"{path}: {key} has unknown key {unknown[0]!r}; expected {', '.join(PRICE_KEYS)}.")
        for name, price in entry.items():
            if isinstance(price, bool) or not isinstance(price, (int, float)) or not math.isfinite(price) or price < 0:
                raise ConfigError(f"{path}: {key}.{name} is {price!r}; expected a number of US dollars ≥ 0.")
        for name in REQUIRED_KEYS:
            if name not in entry:
                raise ConfigError(f"{path}: {key}.{name} is missing (US dollars per million tokens).")


def is_local(base_url: str | None) -> bool:
    """A server on this machine: ``localhost`` or a loopback address (``127.0.0.0/8``, ``::1``)."""
    if not base_url:
        return False
    host = urlsplit(base_url if "//" in base_url else f"//{base_url}").hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class PriceTable:
    """The defaults with the user's entries over them; looked up by model name."""

    prices: Mapping[str, ModelPrice]
    local_servers_free: bool = True

    @classmethod
    def from_settings(cls, models: Mapping[str, Mapping[str, float]] | None, local_servers_free: bool) -> "PriceTable":
        """``models`` is the validated ``pricing.models``: each entry replaces a default whole."""
        prices = dict(DEFAULT_PRICES)
        prices.update({str(name).lower(): ModelPrice.of(entry) for name, entry in (models or {}).items()})
        return cls(prices, local_servers_free)

    def lookup(self, model: str) -> tuple[str, ModelPrice] | None:
        """The entry for ``model``: its exact name, else the longest name it starts with
        (``claude-sonnet-4-5-20250929`` → ``claude-sonnet-4-5``); a routing prefix such as
        OpenRouter's ``anthropic/`` is ignored. ``None``: no price is known."""
        name = model.lower().rsplit("/", 1)[-1]
        if name in self.prices:
            return name, self.prices[name]
        matches = [key for key in self.prices if name.startswith(key)]
        if not matches:
            return None
        key = max(matches, key=len)
        return key, self.prices[key]

    def pricer(self, model: str, base_url: str | None) -> "Pricer":
        """How the requests to ``model`` at ``base_url`` are priced."""
        if self.local_servers_free and is_local(base_url):
            return Pricer(LOCAL_SERVER, ModelPrice(0.0, 0.0, 0.0, 0.0))
        found = self.lookup(model)
        return Pricer(found[0], found[1]) if found else Pricer(None, None)


@dataclass(frozen=True)
class Cost:
    """Estimated US dollars of one request or a sum of them, and what caching saved (negative when
    the cache writes cost more than the reads saved)."""

    usd: float
    saved_usd: float

    def __add__(self, other: "Cost") -> "Cost":
        return Cost(self.usd + other.usd, self.saved_usd + other.saved_usd)


@dataclass(frozen=True)
class Pricer:
    """The price entry requests are charged by; ``price`` is ``None`` when none is known."""

    priced_as: str | None  # the table entry's name, or "local server"
    price: ModelPrice | None

    def cost(self, input_tokens: int, output_tokens: int, cache_read: int, cache_write: int) -> Cost | None:
        """``input_tokens`` is the whole prompt, cached parts included (``engine.providers.TokenUsage``)."""
        price = self.price
        if price is None:
            return None
        uncached = max(0, input_tokens - cache_read - cache_write)
        charged = (uncached * price.input + cache_read * price.cache_read + cache_write * price.cache_write
                   + output_tokens * price.output) / PER
        uncached_cost = (input_tokens * price.input + output_tokens * price.output) / PER
        return Cost(charged, uncached_cost - charged)
