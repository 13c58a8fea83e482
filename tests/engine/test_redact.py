"""Secret redaction: a corpus of real-format (fabricated) tokens and near misses, the mask format,
structured values, the config switch, and the shape of every pattern that keeps it linear."""

from __future__ import annotations

import json
import re
from pathlib import Path
from re import _constants as sre_c  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.config import load_config
from engine.security import redact as redact_mod
from engine.security.redact import is_secret_name, keep, make_redactor, mask, redact, redact_obj

CORPUS = [json.loads(line) for line in (Path(__file__).parent.parent / "data" / "redaction_corpus.jsonl").open(encoding="utf-8")]
SECRETS = [c for c in CORPUS if c["kind"] == "secret"]
BENIGN = [c for c in CORPUS if c["kind"] == "benign"]


def test_corpus_covers_every_required_family() -> None:
    ids = " ".join(c["id"] for c in SECRETS)
    for family in ("anthropic", "openai", "github", "aws", "slack", "google", "gitlab", "huggingface",
                   "stripe", "npm", "pypi", "jwt", "pem", "env_", "json_", "url_", "db_url", "sendgrid", "twilio"):
        assert family in ids
    assert len(BENIGN) >= 20


@pytest.mark.parametrize("case", SECRETS, ids=[c["id"] for c in SECRETS])
def test_secret_is_masked(case: dict[str, str]) -> None:
    out = redact(case["text"])
    assert case["secret"] not in out
    assert out == case["redacted"]


@pytest.mark.parametrize("case", BENIGN, ids=[c["id"] for c in BENIGN])
def test_near_miss_is_left_alone(case: dict[str, str]) -> None:
    assert redact(case["text"]) == case["text"]


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_second_pass_changes_nothing(case: dict[str, str]) -> None:
    once = redact(case["text"])
    assert redact(once) == once


_PIECES = st.sampled_from(
    list("sk-_eyJ.=:\"' ?&aZ09/+\n…*$({[")
    + ["sk-ant-", "api_key", "password", "Bearer ", "eyJ", "AbCdEf0123456789", "token=", "?sig=",
       "-----BEGIN RSA PRIVATE KEY-----\n", "-----END RSA PRIVATE KEY-----", "ghp_", "AKIA", "hf_"]
)


@example("token=?sig=(")  # a skipped value that held a masked URL parameter
@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_redaction_is_idempotent_on_arbitrary_mixtures(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_mask_format_short_and_long() -> None:
    assert mask("a" * 17) == "***"
    assert mask("sk-ant-0123456789a1b2") == "sk-ant…a1b2"
    assert mask("x" * 18) == "xxxxxx…xxxx"


def test_key_kept_around_masked_value() -> None:
    assert redact('{"api_key": "0123456789abcdefghij", "n": 1}') == '{"api_key": "012345…ghij", "n": 1}'
    assert redact("KEY=") == "KEY="  # nothing to mask, nothing broken


def test_several_secrets_on_one_line_are_all_masked() -> None:
    text = "a=sk-ant-AbCdEf0123456789xyzw b=ghp_" + "A1" * 18 + " c=https://h/?token=zz9"
    out = redact(text)
    assert out == "a=sk-ant…xyzw b=ghp_A1…A1A1 c=https://h/?token=***"


@pytest.mark.parametrize(
    ("name", "secret"),
    [("api_key", True), ("OPENAI_API_KEY", True), ("apiKey", True), ("x-api-key", True), ("PGPASSWORD", True),
     ("client_secret", True), ("Authorization", True), ("auth", True), ("credentials", True), ("db.password", True),
     ("monkey", False), ("author", False), ("token_count", False), ("max_tokens", False), ("keyboard", False),
     ("key_id", False), ("turkey", False)],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_redact_obj_walks_structures_without_mutating_them() -> None:
    token = "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt0123"
    original = {
        "api_key": "hunter2",
        "messages": [{"role": "user", "content": f"my key is {token}"}, ("tuple", token)],
        "count": 3,
        "nested": {"password": "", "ok": None, "flag": True},
    }
    snapshot = json.dumps(original)
    out = redact_obj(original)
    assert out == {
        "api_key": "***",
        "messages": [{"role": "user", "content": "my key is sk-ant…0123"}, ("tuple", "sk-ant…0123")],
        "count": 3,
        "nested": {"password": "", "ok": None, "flag": True},
    }
    assert json.dumps(original) == snapshot


def test_redact_obj_with_custom_redactor_has_no_key_policy() -> None:
    assert redact_obj({"api_key": "abc", "x": ["abc"]}, str.upper) == {"api_key": "ABC", "x": ["ABC"]}
    assert redact_obj({"api_key": "abc"}, keep) == {"api_key": "abc"}


def test_make_redactor_follows_config(tmp_path: Path) -> None:
    secret = "token=" + "Zz9" * 8
    assert make_redactor(load_config(tmp_path))(secret) == "token=Zz9Zz9…9Zz9"
    (tmp_path / "config.yaml").write_text("security:\n  redact_secrets: false\n", encoding="utf-8")
    assert make_redactor(load_config(tmp_path))(secret) == secret


ADVERSARIAL = ["sk-", "=", "eyJ", " ", "api_key=", "-----BEGIN RSA PRIVATE KEY-----\n", "Bearer ", "?token=&"]


@pytest.mark.parametrize("unit", ADVERSARIAL)
def test_adversarial_megabyte_holds_no_secret(unit: str) -> None:
    """Runs of prefixes, separators and headers are not secrets (timing is measured by the bench)."""
    text = (unit * (1_000_000 // len(unit) + 1))[:1_000_000]
    out = redact(text)
    if unit == "api_key=":  # key=key=…: one 4,096-character value per assignment
        assert out.startswith("api_key=api_ke…key=api_key=api_ke…")
    else:
        assert out == text


def test_adversarial_run_of_jwt_shapes_is_masked_piece_by_piece() -> None:
    text = "eyJabcdefgh." * 100_000
    out = redact(text)
    assert out == "eyJabc…efgh." * (100_000 // 3) + "eyJabcdefgh."


def _repeats(node: list, inside_repeat: bool, where: str) -> None:
    """Assert every repetition in a parsed pattern is bounded and holds no other repetition."""
    for op, av in node:
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            assert av[1] != sre_c.MAXREPEAT, f"unbounded repetition in {where}"
            assert not inside_repeat, f"nested quantifier in {where}"
            _repeats(av[2], True, where)
        elif op is sre_c.BRANCH:
            for alt in av[1]:
                _repeats(alt, inside_repeat, where)
        elif op is sre_c.SUBPATTERN:
            _repeats(av[3], inside_repeat, where)
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            _repeats(av[1], inside_repeat, where)


def test_every_pattern_is_bounded_and_unnested() -> None:
    patterns = {name: value for name, value in vars(redact_mod).items() if isinstance(value, re.Pattern)}
    assert {"_SCAN", "_VALUE", "_PEM_BEGIN", "_SECRET_NAME"} <= patterns.keys()
    for name, pattern in patterns.items():
        _repeats(list(sre_parse.parse(pattern.pattern, pattern.flags)), False, name)


def test_structure_check_catches_a_nested_quantifier() -> None:
    with pytest.raises(AssertionError, match="nested"):
        _repeats(list(sre_parse.parse(r"(?:a{1,3}b){1,5}")), False, "probe")
    with pytest.raises(AssertionError, match="unbounded"):
        _repeats(list(sre_parse.parse(r"a+")), False, "probe")
