"""Prices: the dated defaults, the user's entries over them, local servers free, and the cost sums."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import load_config
from engine.errors import ConfigError
from engine.pricing import DEFAULT_PRICES, PRICES_AS_OF, Cost, ModelPrice, PriceTable, Pricer, is_local


def test_defaults_are_dated_and_cover_the_common_models() -> None:
    assert PRICES_AS_OF[:4].isdigit()
    for name in ("claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5", "gpt-4o", "gpt-4.1", "gpt-5"):
        assert name in DEFAULT_PRICES
    sonnet = DEFAULT_PRICES["claude-sonnet-4-5"]
    assert (sonnet.input, sonnet.output, sonnet.cache_read, sonnet.cache_write) == (3.0, 15.0, 0.3, 3.75)
    assert DEFAULT_PRICES["gpt-4o"].cache_write == DEFAULT_PRICES["gpt-4o"].input  # OpenAI bills no write


@pytest.mark.parametrize(("model", "entry"), [
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),  # a dated snapshot name
    ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),  # OpenRouter's routing prefix
    ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),  # the longest matching name wins over gpt-4o
    ("GPT-4o", "gpt-4o"),
])
def test_lookup_by_name_snapshot_and_route(model: str, entry: str) -> None:
    found = PriceTable.from_settings({}, True).lookup(model)
    assert found is not None and found[0] == entry


def test_an_unknown_model_has_no_price() -> None:
    pricer = PriceTable.from_settings({}, True).pricer("llama3.1:8b", "https://api.example.com/v1")
    assert pricer == Pricer(None, None) and pricer.cost(100, 10, 0, 0) is None


@pytest.mark.parametrize(("url", "local"), [
    ("http://127.0.0.1:11434/v1", True), ("http://localhost:8000", True), ("http://[::1]:8080/v1", True),
    ("http://127.8.9.1/v1", True), ("https://api.openai.com/v1", False), ("http://10.0.0.5:8000", False),
    (None, False), ("http://localhost.example.com", False),
])
def test_local_servers(url: str | None, local: bool) -> None:
    assert is_local(url) is local


def test_local_servers_cost_nothing_unless_switched_off() -> None:
    free = PriceTable.from_settings({}, True).pricer("gpt-4o", "http://127.0.0.1:9/v1")
    assert free.priced_as == "local server" and free.cost(1000, 100, 500, 0) == Cost(0.0, 0.0)
    paid = PriceTable.from_settings({}, False).pricer("gpt-4o", "http://127.0.0.1:9/v1")
    assert paid.priced_as == "gpt-4o"


def test_cost_and_saving_of_a_cached_anthropic_request() -> None:
    pricer = Pricer("claude-sonnet-4-5", DEFAULT_PRICES["claude-sonnet-4-5"])
    # 10,000 prompt tokens: 8,000 read from the cache, 1,000 written, 1,000 plain; 500 out.
    cost = pricer.cost(10_000, 500, 8_000, 1_000)
    assert cost is not None
    assert cost.usd == pytest.approx((1000 * 3 + 8000 * 0.3 + 1000 * 3.75 + 500 * 15) / 1e6)
    assert cost.saved_usd == pytest.approx((10_000 * 3 + 500 * 15) / 1e6 - cost.usd)
    first = pricer.cost(10_000, 500, 0, 10_000)  # writing the cache costs more than not caching
    assert first is not None and first.saved_usd < 0


def test_config_entries_replace_and_add(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "pricing:\n  local_servers_free: false\n  models:\n    gpt-4o: {input: 2.0, output: 8.0, cache_read: 1.0}\n"
        "    my-model: {input: 1, output: 2}\n", encoding="utf-8")
    table = load_config(tmp_path).pricing.table()
    assert table.local_servers_free is False
    assert table.prices["gpt-4o"] == ModelPrice(2.0, 8.0, 1.0, 2.0)  # a missing cache price = input
    assert table.prices["my-model"] == ModelPrice(1.0, 2.0, 1.0, 1.0)
    assert table.prices["claude-sonnet-4-5"] == DEFAULT_PRICES["claude-sonnet-4-5"]


@pytest.mark.parametrize(("text", "message"), [
    ("pricing:\n  models: [gpt-4o]\n", "pricing.models must be a mapping"),
    ("pricing:\n  models:\n    gpt-4o: 2.5\n", "pricing.models.gpt-4o must be a mapping"),
    ("pricing:\n  models:\n    gpt-4o: {input: cheap, output: 1}\n", "pricing.models.gpt-4o.input is 'cheap'"),
    ("pricing:\n  models:\n    gpt-4o: {input: -1, output: 1}\n", "pricing.models.gpt-4o.input is -1"),
    ("pricing:\n  models:\n    gpt-4o: {input: .nan, output: 1}\n", "pricing.models.gpt-4o.input is nan"),
    ("pricing:\n  models:\n    gpt-4o: {input: true, output: 1}\n", "pricing.models.gpt-4o.input is True"),
    ("pricing:\n  models:\n    gpt-4o: {output: 1}\n", "pricing.models.gpt-4o.input is missing"),
    ("pricing:\n  models:\n    gpt-4o: {input: 1, output: 1, cached: 0.5}\n", "unknown key 'cached'"),
    ("pricing:\n  local_servers_free: 'no'\n", "pricing.local_servers_free"),
    ("pricing: 3\n", "pricing must be a mapping"),
])
def test_a_malformed_price_table_is_refused_naming_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path)
    assert message in str(error.value) and str(path) in str(error.value)
    assert path.read_text(encoding="utf-8") == text  # nothing rewritten
