"""Threat scanner for text that may enter a system prompt: memory writes, context files, approvals.

Why a scanner at all: memory and context files are injected into *every* future system prompt, so
one poisoned line persists across sessions. Each pattern has a stable id (``category.name``) that
refusal messages quote, so a user can see exactly why a write was blocked.

Design rules (see DESIGN.md "Threat scan"):

* English and Chinese phrasings; the text is NFKC-folded and lower-cased first (full-width
  ``ｃｕｒｌ`` becomes ``curl``) and runs of horizontal whitespace collapse to one space.
* Linear time on any input: every gap between key words is bounded (``[^\\n]{0,80}?``), no
  quantifier is nested over overlapping classes, and the whole input is scanned (no 64 k cap).
* Precise on plain facts: a key's *path*, a port, "don't use sudo for docker", ``.gitignore
  ignores build/`` and emoji joined with ZWJ pass. Reading a secret is only a threat together
  with sending or revealing it.
"""

from __future__ import annotations

import re
from functools import cached_property
import unicodedata
from dataclasses import dataclass

# Bounded, lazy gap between key words on one line (the linear-time guarantee rests on the bound).
_GAP = r"[^\n]{0,80}?"
_SHORT = r"[^\n]{0,30}?"

# Words naming secrets, and places secrets live.
_SECRET_WORDS = (
    r"(?:api[ _-]?keys?|secret(?:s| keys?)?|passwords?|passwd|tokens?|credentials?|private keys?|"
    r"ssh keys?|env(?:ironment)? var(?:iable)?s|cookies?|session ids?)"
)
_SECRET_FILES = (
    r"(?:\.env\b|\.netrc|\.pgpass|\.npmrc|\.pypirc|\.aws/credentials|credentials\.json|"
    r"id_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|\.ssh/[\w.-]+|secrets\.(?:ya?ml|json|toml)|"
    r"/etc/shadow|\.kube/config|\.docker/config\.json)"
)
_ZH_SECRET = r"(?:密钥|秘钥|密码|口令|令牌|凭据|凭证|私钥|api ?key|token|环境变量|credentials|\.env|\.netrc|id_rsa|\.ssh/)"
_SEND = "send|post|upload|transmit|exfiltrate|forward|email|e-mail|paste|leak|beacon|pipe"
_REVEAL = "reveal|print|show|output|display|dump|echo|leak|expose|share|include|tell|give|return"
_DEST = (
    r"(?:https?://|ftp://|webhook|pastebin|requestbin|ngrok|discord(?:app)?\.com/api|"
    r"(?:to|in|into) (?:the |this |your )?(?:chat|reply|response|answer|conversation|output|user|me)\b|"
    r"(?:to|with) (?:me|us|them|anyone|everyone|the attacker|this (?:address|server|url|endpoint)))"
)
_SECRET_WORD_ANCHORS = ("key", "secret", "passw", "token", "credential", "cookie", "session id", "env var", "environment var")
_SECRET_FILE_ANCHORS = (
    ".env", ".netrc", ".pgpass", ".npmrc", ".pypirc", "credentials", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519",
    ".ssh/", "secrets.", "/etc/shadow", ".kube/config", ".docker/config",
)
_ZH_SECRET_ANCHORS = ("密钥", "秘钥", "密码", "口令", "令牌", "凭据", "凭证", "私钥", "api key", "apikey", "token", "环境变量")
_SECRET_VAR = r"\$\{?(?:env:)?[a-z_]{0,40}(?:key|token|secret|password|passwd|credential|pat)s?\b"


@dataclass(frozen=True)
class ThreatMatch:
    """One pattern hit: its stable id, its category and a short excerpt of the matched text."""

    pattern_id: str
    category: str
    excerpt: str


@dataclass(frozen=True)
class _Pattern:
    """A regex plus ``anchors``: literals of which every match contains at least one.

    The regex only runs on windows of ``_SPAN`` characters around anchor occurrences (found with
    ``str.find`` at memory speed), so text far from any anchor never pays for the regex. Every
    regex is bounded, so no match is longer than ``_SPAN`` and windowing loses none; a test checks
    each anchor list against the corpus.
    """

    pattern_id: str
    anchors: tuple[str, ...]
    source: str

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use: start-up (the app, ``chat -q``) should not pay for all of them."""
        return re.compile(self.source)

    @property
    def category(self) -> str:
        return self.pattern_id.split(".", 1)[0]


def _p(pattern_id: str, anchors: tuple[str, ...], regex: str) -> _Pattern:
    return _Pattern(pattern_id, anchors, regex)


PATTERNS: tuple[_Pattern, ...] = (
    # ── prompt injection: overriding the instructions already given ──────────────────────────
    _p(
        "prompt_injection.ignore_previous",
        ("ignore", "disregard", "forget", "override", "bypass", "skip", "discard", "abandon"),
        r"\b(?:ignore|disregard|forget|override|bypass|skip|discard|abandon)\b" + _SHORT
        + r"\b(?:all (?:of )?(?:the |your )?(?:previous|prior|above|earlier|preceding|other)?|previous|prior|"
        r"above|earlier|preceding|your|system|developer|original|initial|safety)\b" + _SHORT
        + r"\b(?:instructions?|prompts?|directives?|guidelines|rules|programming|constraints|"
        r"policies|context)\b",
    ),
    _p(
        "prompt_injection.ignore_previous_zh",
        ("忽略", "无视", "忘记", "忘掉", "不要理会", "不用理会", "抛开", "丢弃", "覆盖", "绕过"),
        r"(?:忽略|无视|忘记|忘掉|不要理会|不用理会|抛开|丢弃|覆盖|绕过)[^\n]{0,20}?"
        r"(?:之前|以前|先前|上面|以上|前面|原来|原有|所有|全部|系统|开发者)[^\n]{0,12}?"
        r"(?:指令|指示|提示词|提示|规则|设定|命令|要求|限制)",
    ),
    _p("prompt_injection.system_override", ("prompt",), r"\bsystem ?prompt (?:override|overwrite|replacement)\b|\boverride (?:the |your )?system prompt\b"),
    _p(
        "prompt_injection.new_instructions",
        ("instruction", "directive", "rules", "orders", "from now on", "task", "purpose", "goal"),
        r"(?:^|[\n\[(#*>:]|\b(?:important|attention|note|urgent)\b[^\n]{0,3}) ?(?:new|updated|revised|real|actual|true) "
        r"(?:system )?(?:instructions?|directives?|rules|orders)\b\]? ?[:：-]|\bfrom now on,? (?:you|your|always|never|ignore|only)\b"
        r"|\byour (?:new|real|true) (?:instructions?|task|purpose|directive|goal) (?:is|are)\b",
    ),
    _p(
        "prompt_injection.new_instructions_zh",
        ("指令", "指示", "规则", "任务", "从现在"),
        r"(?:新的|最新|真正的)(?:系统)?(?:指令|指示|规则|任务)[是为:：]|从现在(?:开始|起)[,，]?\s?(?:你|忽略|不要|只|始终|永远)",
    ),
    _p(
        "prompt_injection.deception",
        ("user", "用户"),
        r"\b(?:do not|don't|never) (?:tell|inform|notify|alert|show|let) (?:the )?user (?:know )?(?:that |about |what |when |how )?(?:you|this|these|it)\b"
        r"|\bwithout (?:telling|informing|notifying|alerting) (?:the )?user\b|\bkeep (?:this|it) (?:secret|hidden) from (?:the )?user\b"
        r"|(?:不要|别|切勿)(?:告诉|通知|让)用户(?:知道)?|瞒着用户",
    ),
    # ── role hijack: a new identity for the assistant ────────────────────────────────────────
    _p(
        "role_hijack.you_are_now",
        ("you are", "you're", "pretend", "act", "behave", "roleplay", "role-play"),
        r"\byou are (?:now|no longer)\b|\byou(?:'re| are) (?:actually|really) (?:a|an|the) (?:unrestricted|unfiltered|evil|jailbroken|different)\b"
        r"|\b(?:pretend|act|behave|roleplay|role-play)\b" + _SHORT + r"\b(?:you are|to be|as)\b" + _SHORT
        + r"\b(?:unrestricted|unfiltered|uncensored|evil|jailbroken|without (?:any )?(?:rules|limits|restrictions|filters)|no (?:rules|limits|restrictions|filters)|dan|root|sudo|admin(?:istrator)?|the system|developer)\b",
    ),
    _p(
        "role_hijack.zh",
        ("你现在", "你从现在起", "你从此", "扮演", "假装", "假设你是", "充当"),
        r"你(?:现在|从现在起|从此)(?:是|就是|扮演|变成|成为)|(?:扮演|假装|假设你是|充当)[^\n]{0,20}?"
        r"(?:没有(?:任何)?限制|不受(?:任何)?限制|无限制|邪恶|越狱|管理员|开发者|系统)",
    ),
    _p("role_hijack.fake_role_tag", ("system", "assistant", "developer", "<|", "inst]", "sys>>"), r"(?:^|\n) ?(?:<\|?(?:im_start\|?>)?|\[)?(?:system|assistant|developer)(?:\|>|\])? ?[:：]|<\|im_start\|>|<\|(?:system|endoftext)\|>|\[/?inst\]|<</?sys>>"),
    # ── jailbreak framing: developer mode, no limits, DAN ────────────────────────────────────
    _p(
        "jailbreak.mode",
        ("mode", "do anything now", "jailbroken"),
        r"\b(?:enable|enter|activate|switch to|turn on|go into) (?:the )?(?:god|jailbreak|unrestricted|unfiltered|uncensored) mode\b"
        r"|\b(?:developer|dev|god|jailbreak|unrestricted|unfiltered|uncensored|admin) mode\b" + _SHORT
        + r"\b(?:you|your|answer|respond|reply|ai|assistant|anything|everything|no (?:rules|limits|restrictions)|without)\b"
        r"|\bdan mode\b|\bdo anything now\b|\bjailbroken (?:assistant|ai|model|mode|version)\b|\byou are (?:now )?jailbroken\b",
    ),
    _p(
        "jailbreak.no_limits",
        ("restriction", "limit", "filter", "guardrail", "censorship", "safety", "refus", "polic", "guideline"),
        r"\b(?:without|no|free of|free from|remove|disable|bypass|lift) (?:any |all |your )?"
        r"(?:ethical |safety |content )?(?:restrictions|limitations|limits|filters|guardrails|censorship|safety (?:rules|guidelines|filters))\b"
        + _SHORT + r"\b(?:you|respond|answer|reply|comply|act|output)\b"
        r"|\b(?:respond|answer|reply|act|comply|behave)\b" + _SHORT
        + r"\bwithout (?:any )?(?:ethical |safety |content )?(?:restrictions|limitations|limits|filters|guardrails|censorship|refusing|refusals)\b"
        r"|\b(?:content|safety|ethical) (?:policies|policy|filters|guidelines|guardrails) (?:are|is) (?:now )?(?:disabled|off|removed|lifted|suspended)\b",
    ),
    _p(
        "jailbreak.zh",
        ("模式", "限制", "约束", "审查", "过滤"),
        r"开发者模式|越狱模式|上帝模式|无限制模式|(?:没有|不受|解除|取消|移除|绕过)(?:任何|所有|一切)?(?:道德|安全|内容)?(?:限制|约束|审查|过滤)"
        r"[^\n]{0,20}?(?:回答|回复|输出|执行|行事|你)",
    ),
    # ── system-prompt extraction ─────────────────────────────────────────────────────────────
    _p(
        "prompt_extraction.system_prompt",
        ("system", "initial", "hidden", "prompt", "conversation", "chat history", "previous messages", "context", "memory file"),
        r"\b(?:" + _REVEAL + r"|repeat|recite|reproduce|copy|translate|summarize|write out)\b" + _SHORT
        + r"\b(?:your|the|initial|original|hidden|full|entire|complete)\b" + _SHORT
        + r"\b(?:system (?:prompt|message|instructions)|initial (?:prompt|instructions)|hidden (?:prompt|instructions)|pre-?prompt)\b"
        r"|\bwhat (?:is|are|was|were) your (?:system prompt|initial instructions|hidden instructions)\b"
        r"|\b(?:include|print|output|dump|share|send)\b" + _SHORT + r"\b(?:the |this )?(?:entire |whole |full )?(?:conversation|chat history|previous messages|full context|entire context|memory file)\b",
    ),
    _p(
        "prompt_extraction.zh",
        ("系统提示", "系统指令", "初始指令", "初始提示", "隐藏指令", "完整上下文", "对话记录"),
        r"(?:输出|打印|显示|告诉我|泄露|复述|重复|透露|展示|发给我)[^\n]{0,12}?(?:你的|完整的?|全部|原始|隐藏的?)?[^\n]{0,6}?(?:系统提示词?|系统指令|初始指令|初始提示|隐藏指令|完整上下文|对话记录)"
        r"|(?:把|将)[^\n]{0,10}?(?:系统提示词?|系统指令|初始指令|隐藏指令|完整上下文)[^\n]{0,10}?(?:发给|发到|告诉|输出|打印|给我)",
    ),
    # ── hidden markup: instructions tucked away from the user's eye ──────────────────────────
    _p(
        "hidden_markup.html_comment",
        ("<!--",),
        r"<!--(?:[^<\n]|<(?!!--)){0,300}?\b(?:ignore|override|system|secret|hidden|instructions?|assistant|prompt|"
        r"you (?:are|must|should)|do not|execute|run|send|curl)\b|<!--[^\n]{0,100}?(?:指令|忽略|系统|秘密)",
    ),
    _p(
        "hidden_markup.hidden_element",
        ("display", "visibility", "font-size", "opacity", "hidden"),
        r"<[a-z]{1,10} [^<>]{0,200}?(?:display ?: ?none|visibility ?: ?hidden|font-size ?: ?0(?![.\d])|opacity ?: ?0(?![.\d])|\bhidden\b)",
    ),
    # ── secret exfiltration: secrets read and sent or revealed ───────────────────────────────
    _p(
        "exfil.curl_env",
        ("$", "`", "@", "--data"),
        r"\b(?:curl|wget|invoke-webrequest|iwr|invoke-restmethod|httpie|http|nc|ncat|netcat|fetch)\b" + _GAP
        + r"(?:" + _SECRET_VAR + r"|\$\((?:env|printenv|cat [^)\n]{0,60})\)|`(?:env|printenv|cat [^`\n]{0,60})`|@" + _SECRET_FILES
        + r"|--data[-a-z]* [^\n]{0,20}?" + _SECRET_FILES + r")",
    ),
    _p("exfil.env_pipe", ("|",), r"\b(?:env|printenv|set|cat " + _SECRET_FILES + r")[^\n|]{0,40}\| ?(?:curl|wget|nc|ncat|netcat|mail|sendmail|base64)\b"),
    _p(
        "exfil.read_and_send",
        _SECRET_FILE_ANCHORS,
        r"\b(?:cat|read|open|load|grep|copy|collect|gather|take|get|type|base64)\b" + _SHORT + _SECRET_FILES + _GAP
        + r"\b(?:" + _SEND + r"|curl|wget|" + _REVEAL + r")\b" + _GAP + _DEST,
    ),
    _p(
        "exfil.send_secrets",
        _SECRET_WORD_ANCHORS + _SECRET_FILE_ANCHORS + ("conversation", "chat history", "memor", "system prompt"),
        r"\b(?:" + _SEND + r")\b" + _SHORT + r"(?:" + _SECRET_WORDS + r"|" + _SECRET_FILES + r"|(?:the |this |our |my |your )?(?:conversation|chat history|memory|memories|system prompt))"
        + _GAP + _DEST,
    ),
    _p(
        "exfil.reveal_secrets",
        _SECRET_WORD_ANCHORS + _SECRET_FILE_ANCHORS,
        r"\b(?:" + _REVEAL + r")\b" + _SHORT + r"(?:all |every |the |your |my |any )?(?:contents? of )?(?:" + _SECRET_WORDS + r"|" + _SECRET_FILES + r")"
        + _SHORT + _DEST,
    ),
    _p(
        "exfil.zh",
        _ZH_SECRET_ANCHORS + _SECRET_FILE_ANCHORS,
        r"(?:把|将|读取|获取|收集)[^\n]{0,20}?" + _ZH_SECRET + r"[^\n]{0,30}?(?:发送|发给|发到|上传|传到|泄露|贴到|回传|post|curl)"
        r"|(?:发送|发给|上传|泄露|透露|告诉)[^\n]{0,12}?" + _ZH_SECRET
        + r"[^\n]{0,20}?(?:给|到|至)?[^\n]{0,10}?(?:https?://|服务器|用户|我|邮箱|网址|链接)",
    ),
    # ── secrets written straight into memory ────────────────────────────────────────────────
    _p(
        "secret.token",
        ("sk-", "ghp_", "github_pat_", "akia", "xox", "private key-----"),
        r"\bsk-(?:ant-|proj-|live-)?[a-z0-9_-]{20}|\bghp_[a-z0-9]{30}|\bgithub_pat_[a-z0-9_]{30}|\bakia[0-9a-z]{16}\b"
        r"|\bxox[abprs]-[a-z0-9-]{10}|-----begin (?:rsa |openssh |ec |dsa |pgp )?private key-----",
    ),
    _p(
        "secret.assignment",
        ("key", "token", "secret", "passw"),
        r"(?:api[_-]?key|access[_-]?token|secret|password|passwd)\b ?[=:] ?[\"']?[a-z0-9+/=_.-]{20}",
    ),
    # ── SSH backdoors ───────────────────────────────────────────────────────────────────────
    _p(
        "ssh_backdoor.authorized_keys",
        ("authorized_keys", "ssh-copy-id"),
        r"(?:>>?|\btee\b|\becho\b|\bappend|\badd|\binsert|\bwrite|\bput|\bplace|\bcopy|\bcp\b|\bssh-copy-id\b|写入|添加|追加|加入|放入|复制)"
        + _GAP + r"authorized_keys|authorized_keys" + _SHORT
        + r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2|追加|添加|写入|加入|\bappend|\badd\b)|\bssh-copy-id\b",
    ),
    _p("ssh_backdoor.reverse_shell", ("/bin/sh", "/bin/bash", "/dev/tcp", "bash -i"), r"\b(?:nc|ncat|netcat)\b[^\n]{0,40}? -e ?/bin/(?:ba)?sh\b|/dev/tcp/[\d.]{7,15}/\d{1,5}|\bbash -i\b[^\n]{0,20}?>&"),
)

# Invisible and bidi characters (DESIGN.md list) plus the tag block U+E0000–E007F.
_INVISIBLE = re.compile("[\u200b-\u200d\u2060\u2062-\u2064\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
# Legitimate uses: ZWJ inside an emoji sequence, tag letters in a subdivision flag (🏴 + tags + cancel).
_EMOJI_FLAG = re.compile("\U0001f3f4[\U000e0061-\U000e007a\U000e0030-\U000e0039]{2,6}\U000e007f")
# Horizontal whitespace NFKC leaves alone becomes a plain space; runs of spaces then collapse.
_ODD_SPACES = "\t\r\v\f\x1c\x1d\x1e\x1f\x85\u1680\u2028\u2029"
_SPACE_RUN = re.compile(" {2,}")
_EXCERPT = 80
# Upper bound on the length of any pattern match (all gaps are bounded); windows use it.
_SPAN = 400
_CHUNK = 32_768


def _is_emoji(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x1F000 <= cp <= 0x1FAFF
        or 0x2600 <= cp <= 0x27BF
        or cp in (0xFE0F, 0x2640, 0x2642, 0x2695, 0x2696, 0x2708, 0x2764)
    )


def _invisible_matches(text: str) -> list[ThreatMatch]:
    """Invisible/bidi/tag characters, except a ZWJ between emoji and tags inside a flag emoji."""
    allowed: set[int] = set()
    for flag in _EMOJI_FLAG.finditer(text):
        allowed.update(range(flag.start(), flag.end()))
    seen: set[str] = set()
    found: list[ThreatMatch] = []
    for hit in _INVISIBLE.finditer(text):
        pos, ch = hit.start(), hit.group()
        if pos in allowed:
            continue
        if ch == "\u200d" and 0 < pos < len(text) - 1 and _is_emoji(text[pos - 1]) and _is_emoji(text[pos + 1]):
            continue
        code = f"U+{ord(ch):04X}"
        if code in seen:
            continue
        seen.add(code)
        around = text[max(0, pos - 20) : pos + 20].replace(ch, f"<{code}>")
        found.append(ThreatMatch(f"invisible_unicode.{code}", "invisible_unicode", _clip(around)))
    return found


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


def _windows(text: str, anchors: tuple[str, ...]) -> list[tuple[int, int]]:
    """Merged ``[start, end)`` ranges reaching at least ``_SPAN`` around every anchor occurrence."""
    spots: list[tuple[int, int]] = []
    for anchor in anchors:
        at = text.find(anchor)
        while at != -1:
            # Reaching 2 × _SPAN past the anchor lets the next search skip _SPAN characters: any
            # occurrence skipped is covered, so dense anchors cost n / _SPAN finds, not one each.
            spots.append((max(0, at - _SPAN), at + len(anchor) + 2 * _SPAN))
            at = text.find(anchor, at + _SPAN)
    spots.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spots:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _search_near_anchors(pattern: _Pattern, text: str) -> re.Match[str] | None:
    for start, end in _windows(text, pattern.anchors):
        hit = pattern.regex.search(text, start, min(end, len(text)))
        if hit:
            return hit
    return None


def normalize(text: str) -> str:
    """The form patterns see: NFKC-folded, lower-cased, horizontal whitespace collapsed."""
    folded = unicodedata.normalize("NFKC", text).lower()
    for ch in _ODD_SPACES:  # str.replace per character beats str.translate on non-ASCII text
        if ch in folded:
            folded = folded.replace(ch, " ")
    return _SPACE_RUN.sub(" ", folded)


def scan(text: str) -> list[ThreatMatch]:
    """Every pattern that matches anywhere in ``text`` (one match per pattern id, in table order)."""
    if not text:
        return []
    found = _invisible_matches(text)  # on the raw text: NFKC would drop some of these characters
    hits: dict[str, ThreatMatch] = {}
    # Fixed-size overlapping chunks keep the working set in cache, so 1 MB costs 10 × 100 kB;
    # the overlap exceeds any match, so a match across a chunk edge is still seen whole.
    for start in range(0, len(text), _CHUNK):
        folded = normalize(text[start : start + _CHUNK + 2 * _SPAN])
        for pattern in PATTERNS:
            if pattern.pattern_id not in hits and (hit := _search_near_anchors(pattern, folded)):
                hits[pattern.pattern_id] = ThreatMatch(pattern.pattern_id, pattern.category, _clip(hit.group()))
    return found + [hits[p.pattern_id] for p in PATTERNS if p.pattern_id in hits]


def first_threat(text: str) -> ThreatMatch | None:
    """The first hit, or ``None`` when the text is clean (for block-on-first-hit callers)."""
    matches = scan(text)
    return matches[0] if matches else None


def describe(matches: list[ThreatMatch]) -> str:
    """Pattern ids for a refusal message: ``prompt_injection.ignore_previous, exfil.curl_env``."""
    return ", ".join(m.pattern_id for m in matches)
