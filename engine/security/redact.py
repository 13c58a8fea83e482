"""Mask API keys, tokens and passwords in text bound for logs, JSON session logs and exports.

Mask format (:func:`mask`): a secret shorter than 18 characters becomes ``***``; a longer one
keeps its first 6 and last 4 characters around a single ``…`` (``sk-ant…a1b2``), enough to tell
two keys apart in a log without revealing either. :func:`redact` is idempotent: a masked value
is recognised and left alone on a second pass.

Why it is fast and linear: one scanner regex finds every *trigger* (a vendor prefix such as
``sk-``, ``ghp_``, ``SG.`` or ``SK``, ``eyJ``, ``Bearer``, ``?``/``&`` before a sensitive URL
parameter, ``:`` or ``=`` after a secret-looking name, ``://`` after a database scheme). Every
alternative starts with a literal character, so the regex engine skips ordinary text with a
character-set search instead of trying each rule at each position; boundary checks are
fixed-width lookbehinds placed after that literal; every repetition is one character class with
an upper bound and no quantifier holds another. The name before a ``:``/``=`` (and a database
URL's scheme) is read from a bounded window, the value after it with an anchored match. Text is
scanned once, left to right, and each region is replaced at most once. PEM blocks are found
with plain forward searches (never a lazy ``.*?``) before the scan.
``bench/bench_redact.py`` measures the 1 MB / 100 kB ratio on adversarial inputs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

MASK = "***"
ELLIPSIS = "…"
SHORT_SECRET = 18

# (prefix, body, must-look-random). The body never includes the prefix; bounded everywhere.
_TOKENS: tuple[tuple[str, str, bool], ...] = (
    ("sk-", r"[A-Za-z0-9_-]{17,4096}", True),  # Anthropic sk-ant-…, OpenAI sk-… / sk-proj-…
    *((f"{kind}k_{mode}_", r"[A-Za-z0-9]{10,4096}", True) for kind in "srp" for mode in ("live", "test")),
    *((f"gh{kind}_", r"[A-Za-z0-9]{30,255}", False) for kind in "pousr"),  # GitHub classic
    ("github_pat_", r"[A-Za-z0-9_]{22,255}", False),  # GitHub fine-grained
    ("AKIA", r"[A-Z0-9]{16}(?![A-Za-z0-9])", False),  # AWS access key id
    ("ASIA", r"[A-Z0-9]{16}(?![A-Za-z0-9])", False),  # AWS temporary access key id
    *((f"xox{kind}-", r"[A-Za-z0-9-]{10,255}", True) for kind in "abprs"),  # Slack
    ("AIza", r"[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])", False),  # Google API key
    ("glpat-", r"[A-Za-z0-9_-]{20,255}", True),  # GitLab
    ("hf_", r"[A-Za-z0-9]{30,255}", True),  # Hugging Face
    ("npm_", r"[A-Za-z0-9]{36,255}", True),  # npm
    ("pypi-", r"[A-Za-z0-9_-]{50,4096}", True),  # PyPI
    ("SG.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])", True),  # SendGrid
    ("SK", r"[0-9a-fA-F]{32}(?![A-Za-z0-9])", True),  # Twilio API key
    # JWT: three base64url segments, the header a JSON object ({" = eyJ).
    ("eyJ", r"[A-Za-z0-9_-]{7,8192}\.[A-Za-z0-9_-]{10,16384}\.[A-Za-z0-9_-]{0,8192}", False),
)
_ID = "A-Za-z0-9_-"  # characters that continue a token: one preceded by them is mid-word

_URL_PARAM = (
    r"(?i:access_token|refresh_token|id_token|token|api_key|apikey|key|sig|signature"
    r"|password|passwd|pwd|secret|client_secret|auth|x-amz-signature|x-amz-credential"
    r"|x-amz-security-token)="
)
# Last three letters of every secret word, to skip most ``:``/``=`` without a Python call.
_WORD_TAIL = r"(?i:key|ken|ret|ord|swd|pwd|ial|als|uth|ion)"
_WORD_LAST = "yYnNtTdDlLsShH"
# After a consumed ``:``/``=``: the name before it ends like a secret word, optionally followed
# by a quote and/or one space. A one-character lookbehind rejects most separators first.
_SEP_GUARD = "|".join(
    f"(?<=[{_WORD_LAST}]{gap}[:=])(?<={_WORD_TAIL}{gap}[:=])" for gap in ("", "[\"' ]", "[\"'] ")
)


def _anchor(prefix: str) -> int:
    """Index of the rarest character of a token prefix (``-``, ``_``, ``J``, ``K`` or ``G``; else
    the first)."""
    return next((i for i, ch in enumerate(prefix) if ch in "-_JKG"), 0)


def _scanner() -> re.Pattern[str]:
    """One alternative per leading literal, so the engine skips ordinary text by character set.

    A token is anchored on its rarest prefix character (``sk-`` on ``-``, ``eyJ`` on ``J``) so
    common letters such as ``e`` or ``s`` are not candidates; lookbehinds check the rest of the
    prefix and that the token starts a word.
    """
    by_first: dict[str, list[str]] = {
        "?": [f"(?P<url_q>{_URL_PARAM})"],
        "&": [f"(?P<url_a>{_URL_PARAM})"],
        ":": ["(?<=[A-Za-z0-9]:)(?P<dsn>//)", f"(?P<sep_c>{_SEP_GUARD})"],
        "=": [f"(?P<sep_e>{_SEP_GUARD})"],
    }
    for i, casing in enumerate(("Bearer", "bearer", "BEARER")):
        value = r"[ \t]{1,3}[A-Za-z0-9._~+/=-]{16,4096}"
        by_first.setdefault(casing[0], []).append(
            f"(?<![{_ID}]{casing[0]})(?P<bearer_{i}>{casing[1:]}{value})"
        )
    for i, (prefix, body, _) in enumerate(_TOKENS):
        k = _anchor(prefix)
        head = re.escape(prefix[: k + 1])
        by_first.setdefault(prefix[k], []).append(
            f"(?<={head})(?<![{_ID}]{head})(?P<tok_{i}>{re.escape(prefix[k + 1 :])}{body})"
        )
    return re.compile("|".join(f"{re.escape(first)}(?:{'|'.join(subs)})" for first, subs in by_first.items()))


_SCAN = _scanner()
_PART_START = (
    # A secret word starts a name part: after a non-alphanumeric, at a camel hump (apiKey), or —
    # for the long unambiguous words — anywhere (PGPASSWORD, mytoken).
    r"(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z])"
    r"|(?<=[A-Za-z0-9])(?=(?i:password|passwd|secret|token)\Z))"
)
_SECRET_NAME = re.compile(
    rf"{_PART_START}(?i:api_?key|key|token|secret|password|passwd|pwd|credentials?|auth|authorization)\Z"
)
_MAX_NAME = 64
_REVERSED_NAME = re.compile(rf" ?[\"']?([A-Za-z0-9_.-]{{1,{_MAX_NAME}}})")
_VALUE = re.compile(
    r"[ \t]{0,3}(?:(?i:bearer|basic|token|digest)[ \t])?[ \t]{0,2}"
    r"(?:\"(?P<dq>(?:[^\"\\\r\n]|\\.){1,4096})\"|'(?P<sq>[^'\r\n]{1,4096})'"
    r"|(?P<ref>\$\{[A-Za-z_][A-Za-z0-9_]{0,80}\})|(?P<bare>[^\s\"',;&<>(){}\[\]]{1,4096}))"
)
_URL_VALUE = re.compile(r"[^&#\s\"'<>]{1,4096}")
# A database URL's scheme, read from the window before ``://`` (``postgresql+psycopg2`` too), and
# its ``user:password@``; userinfo cannot hold ``/ ? #`` unencoded, so the password stops there.
_DSN_WINDOW = 40
_DSN_SCHEME = re.compile(
    r"(?<![A-Za-z0-9+.-])(?i:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?)"
    r"(?:\+[A-Za-z0-9_]{1,20}|)\Z"  # an optional driver, spelled so no quantifier holds another
)
_DSN_USERINFO = re.compile(r"[^\s:@/?#\"'<>]{0,256}:(?P<pw>[^\s@/?#\"'<>]{1,1024})@")
_TEMPLATE = re.compile(r"\$?\{[^{}]{0,1024}\}\Z")  # f"…:{password}@…" or ${DB_PASSWORD}: code, not a secret
# Values in NAME=value that are references, placeholders or literals, not secrets.
_NOT_A_VALUE = re.compile(r"(?:\$[A-Za-z_][A-Za-z0-9_]{0,80}|None|null|nil|true|false|\*{1,64})\Z")

_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,60}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,60}PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = re.compile(r"[A-Za-z0-9+/=\r\n]{0,65536}")

# (start, end, replacement) of one masked region, or None when a trigger is not a secret.
_Edit = tuple[int, int, str] | None


def mask(secret: str) -> str:
    """``***`` for a short secret; first 6 + ``…`` + last 4 for a long one."""
    if len(secret) < SHORT_SECRET:
        return MASK
    return f"{secret[:6]}{ELLIPSIS}{secret[-4:]}"


def is_secret_name(name: str) -> bool:
    """True when a key or variable name ends in a secret word (``api_key``, ``PGPASSWORD``)."""
    return _SECRET_NAME.search(name) is not None


def _already_masked(value: str) -> bool:
    return ELLIPSIS in value or MASK in value


def _looks_random(body: str) -> bool:
    """At least two of lower case, upper case and digits: a key, not a hyphenated phrase."""
    kinds = (any(c.islower() for c in body), any(c.isupper() for c in body), any(c.isdigit() for c in body))
    return sum(kinds) >= 2


def _masked(start: int, value: str) -> _Edit:
    return None if _already_masked(value) else (start, start + len(value), mask(value))


def _name_before(text: str, sep_at: int) -> str:
    """The identifier before a ``:``/``=`` (past one optional space and quote).

    Read as a forward match over the reversed window, so the work stays in the regex engine.
    """
    window = text[max(0, sep_at - _MAX_NAME - 2) : sep_at][::-1]
    found = _REVERSED_NAME.match(window)
    return found.group(1)[::-1] if found else ""


def _assignment(text: str, m: re.Match[str]) -> _Edit:
    if not is_secret_name(_name_before(text, m.start())):
        return None
    v = _VALUE.match(text, m.end())
    if v is None:
        return None
    group = next(g for g in ("dq", "sq", "ref", "bare") if v.group(g) is not None)
    value = v.group(group)
    if group == "ref" or _NOT_A_VALUE.match(value):
        return None
    if group == "bare":
        is_code = text[v.end() : v.end() + 1] in ("(", "[")  # a call or a type, not a value
        # ``token: expired`` is prose; an env-style ``NAME=value`` is always a value.
        is_word = m.group(0) == ":" and value.rstrip(".!?").isalpha() and len(value) < 12
        if is_code or is_word:
            return None
    return _masked(v.start(group), value)


def _dsn_password(text: str, m: re.Match[str]) -> _Edit:
    """The password of ``postgres://user:password@host`` (and the other database schemes)."""
    scheme_end = m.start()  # the ``:`` before ``//``
    if _DSN_SCHEME.search(text[max(0, scheme_end - _DSN_WINDOW) : scheme_end]) is None:
        return None
    userinfo = _DSN_USERINFO.match(text, m.end())
    if userinfo is None:
        return None
    password = userinfo.group("pw")
    if _TEMPLATE.match(password) or _NOT_A_VALUE.match(password):
        return None
    return _masked(userinfo.start("pw"), password)


def _edit(text: str, m: re.Match[str]) -> _Edit:
    kind = m.lastgroup or ""
    if kind == "dsn":
        return _dsn_password(text, m)
    if kind.startswith("sep_"):
        return _assignment(text, m)
    if kind.startswith("url_"):
        v = _URL_VALUE.match(text, m.end())
        return None if v is None else _masked(v.start(), v.group(0))
    if kind.startswith("bearer_"):
        value = m.group(0).split()[-1]
        return _masked(m.end() - len(value), value) if _looks_random(value) else None
    prefix, _, needs_entropy = _TOKENS[int(kind.removeprefix("tok_"))]
    start = m.start() - _anchor(prefix)  # the match begins at the prefix's anchor character
    token = text[start : m.end()]
    if needs_entropy and not _looks_random(token[len(prefix) :]):
        return None
    return start, m.end(), mask(token)


def _redact_pem(text: str) -> str:
    """Replace each private-key block's body with ``***``; an unterminated block loses its body."""
    if "PRIVATE KEY" not in text:
        return text
    out: list[str] = []
    pos = 0
    end_exists = True  # once no END follows, none follows a later BEGIN either: stay linear
    while (begin := _PEM_BEGIN.search(text, pos)) is not None:
        end = _PEM_END.search(text, begin.end()) if end_exists else None
        if end is None:
            end_exists = False
            body = _PEM_BODY.match(text, begin.end())
            assert body is not None  # {0,…} always matches
            hidden = body.group(0).strip()
            out.append(f"{text[pos:begin.end()]}{MASK if hidden else ''}")
            pos = body.end() if hidden else begin.end()
            continue
        out.append(f"{text[pos:begin.end()]}\n{MASK}\n{end.group(0)}")
        pos = end.end()
    out.append(text[pos:])
    return "".join(out)


def redact(text: str) -> str:
    """``text`` with every recognised secret masked (see the module docstring for the format)."""
    if not text:
        return text
    text = _redact_pem(text)
    out: list[str] = []
    emitted = pos = 0
    while (m := _SCAN.search(text, pos)) is not None:
        edit = _edit(text, m)
        if edit is None or edit[0] < emitted:  # a token never reaches back into a masked region
            pos = m.end()
            continue
        start, end, replacement = edit
        out.append(text[emitted:start])
        out.append(replacement)
        emitted = pos = end
    if not out:
        return text
    out.append(text[emitted:])
    return "".join(out)


def keep(text: str) -> str:
    """The redactor used when ``security.redact_secrets`` is off."""
    return text


def redact_obj(obj: Any, redactor: Callable[[str], str] = redact) -> Any:
    """A copy of a JSON-like value with ``redactor`` applied to every string (keys excepted).

    With the built-in :func:`redact`, a string under a secret-looking key (``{"api_key": "x"}``)
    is masked whole, since no text rule sees the key; a custom ``redactor`` defines its own
    policy and is only applied to the strings.
    """
    key_aware = redactor is redact

    def walk(value: Any, key: Any = None) -> Any:
        if isinstance(value, str):
            if key_aware and value and isinstance(key, str) and is_secret_name(key) and not _already_masked(value):
                return mask(value)
            return redactor(value)
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(walk(v) for v in value)
        return value

    return walk(obj)


def make_redactor(config: Any) -> Callable[[str], str]:
    """:func:`redact` when ``security.redact_secrets`` is on (the default), else :func:`keep`."""
    return redact if config.get("security.redact_secrets", True) else keep
