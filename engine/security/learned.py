"""The learned layer: a linear model over character n-grams, words and concepts, for attacks no pattern describes.

The model is logistic regression over the presence of features of the folded text
(``normalize.fold`` then the look-alike skeleton, URL hosts and mail domains masked: ``without_hosts``): character 3-, 4- and 5-grams, words and word
pairs (a character of Chinese, Japanese or Hangul counts as a word), and *concepts*
(``concepts``: every language's word for "ignore", "previous", "instructions", "reveal", "system
prompt" … read as one name, and which concept follows which), so what it learns from an English
override also counts for a Turkish one; likewise "skip", "approval", "per head office" (``control_words``)
for a business control waived in any trade. It is trained by ``scripts/train_threat_model.py`` on the
tuning and train-only parts of ``tests/data/threat_corpus/eval.jsonl`` and the older hand-written
corpus (never the held-out part). Each feature is hashed (CRC-32) into one of ``buckets`` weights,
so every feature the training saw keeps its share in a file of fixed size (``threat_model.json``:
the weights as 16-bit integers times ``scale``, base64). Pure Python: a score is one array look-up
per feature (its CRC remembered, ``bucket_ids``), the 16-bit integers summed exactly so the result
does not depend on set order (hash seeds): the same text always gets the same verdict.

A long text is scored in windows of ``window`` characters (overlapping by a fifth), and its score
is the highest window's, so a payload inside a long file is not diluted and the cost stays linear.
The scanner consults this layer only when no pattern hit, and blocks at the threshold of the
text's length band (``thresholds``: chosen by cross-validation on the tuning part so that about
ten out-of-fold reference texts in a thousand are flagged); the hit is ``learned.injection`` with the window's most
telling features as the excerpt.
"""

from __future__ import annotations

import base64
import json
import math
import re
import sys
import zlib
from array import array
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from engine.security import normalize
from engine.security.families import CONCEPTS  # the one home of the vocabulary

MODEL_PATH = Path(__file__).with_name("threat_model.json")
MIN_WORDS = 4  # distinct words a window needs before the model's score counts


def bucket(feature: str, buckets: int) -> int:
    """The weight a feature shares: CRC-32 (the same in every process, unlike ``hash``)."""
    return zlib.crc32(feature.encode("utf-8")) % buckets


_BUCKETS: dict[int, dict[str, int]] = {}  # bucket count → feature → bucket, for features already scored
_BUCKETS_MAX = 400_000  # ~50 MB at most; emptied when full


def bucket_ids(features: set[str], buckets: int) -> set[int]:
    """The weights ``features`` use (two features may share one: the set counts it once).

    A CRC costs more than the rest of a short text's score, and entries share most of their
    n-grams, so buckets are remembered: a text pays the CRCs of the features no text had before.
    """
    known = _BUCKETS.setdefault(buckets, {})
    if len(known) > _BUCKETS_MAX:
        known.clear()
    crc = zlib.crc32
    for g in features.difference(known):
        known[g] = crc(g.encode("utf-8")) % buckets
    return set(map(known.__getitem__, features))


def pack(weights: Sequence[float]) -> tuple[float, str]:
    """``(scale, base64)`` of ``weights`` as little-endian 16-bit integers times ``scale``."""
    scale = max(1e-9, max(map(abs, weights), default=0.0)) / 32767
    ints = array("h", (round(w / scale) for w in weights))
    if sys.byteorder != "little":
        ints.byteswap()
    return scale, base64.b64encode(ints.tobytes()).decode("ascii")


def unpack(packed: str) -> array:
    """The 16-bit integers of ``pack``: the weights in units of the model's ``scale``, kept as they
    are (2 bytes a weight, read in milliseconds; doubles took four times the memory and 0.2 s)."""
    ints = array("h", base64.b64decode(packed))
    if sys.byteorder != "little":
        ints.byteswap()
    return ints


class Model:
    def __init__(self, data: dict) -> None:
        self.sizes: tuple[int, ...] = tuple(data["ngrams"])
        self.window: int = data["window"]
        self.bias: float = data["bias"]
        # (first length, threshold) bands, longest last
        self.thresholds: list[tuple[int, float]] = [tuple(b) for b in data["thresholds"]]
        self.buckets: int = data["buckets"]
        self.scale: float = data["scale"]
        self.weights: array = unpack(data["weights"])  # in units of ``scale``

    def threshold(self, length: int) -> float:
        """The blocking probability for a text of ``length`` characters."""
        return [t for start, t in self.thresholds if length >= start][-1]

    def score_window(self, folded: str) -> tuple[float, list[str]]:
        folded = without_hosts(folded)
        tokens = _TOKEN.findall(folded)
        if len(set(tokens)) < MIN_WORDS:
            return 0.0, []  # too few words to judge: "note 00000 xxxx…" is not language the model knows
        feats = grams(folded, self.sizes, tokens)
        w, n = self.weights, self.buckets
        ids = bucket_ids(feats, n)
        # an integer sum: exact, so the score does not depend on the set's (hash-seeded) order
        z = self.bias + self.scale * sum(map(w.__getitem__, ids)) / math.sqrt(len(ids))
        probability = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
        if probability < min(t for _, t in self.thresholds):  # the cues are only wanted for a hit
            return probability, []
        top = [g for v, g in sorted(((w[bucket(g, n)], g) for g in feats), reverse=True)[:4] if v > 0]
        return probability, top

    def score(self, text: str) -> tuple[float, list[str]]:
        """The highest window probability of any reading of ``text`` and that window's strongest features."""
        step = max(1, self.window - self.window // 5)
        best: tuple[float, list[str]] = (0.0, [])
        for folded in readings(text):
            for start in range(0, max(1, len(folded) - self.window // 5), step):
                result = self.score_window(folded[start : start + self.window])
                if result[0] > best[0]:
                    best = result
        return best


# A URL's host or an address's domain: what the text points at, not what it says. Corpus hosts
# are made up (attacks' "x.example", "hooks.example.net"), so a host learned as a cue flags any note
# naming a like one ("The status page is https://status.example.com" scored 0.95 before hosts were
# masked); the scheme, the path and the words around the link still count.
_HOST = re.compile(r"(?<=://)[^\s/?#)\]>\"'`]+|(?<=\w@)[\w-]+(?:\.[\w-]+)+")


def without_hosts(folded: str) -> str:
    """``folded`` with every URL host and e-mail domain replaced by ``h``."""
    return _HOST.sub("h", folded) if ("://" in folded or "@" in folded) else folded


def prepare(text: str) -> str:
    """The form the model reads: folded, with look-alike letters mapped to ASCII."""
    folded = normalize.fold(text)
    skel = normalize.skeleton(folded)
    return skel if skel is not None else folded


def readings(text: str) -> list[str]:
    """``prepare(text)``, then its leetspeak and spelt-out readings (``normalize.views``) when it has
    them: "1gn0r3 4ll pr3v10u5 1n57ruc710n5" is read as the words it passes for, as the patterns read it."""
    views = dict(normalize.views(text))
    main = views.get("skeleton", views["fold"])
    return [main] + [views[name] for name in ("leet", "unspaced") if name in views and views[name] != main]


# A token is a word, or one character of a script written without spaces (Chinese, Japanese kana,
# Thai) or of Hangul: word features of such text are then its characters and character pairs.
_TOKEN = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]|\w+")
_CONCEPT_GAP = 8  # tokens between two concepts that still make a pair


def tokens(text: str) -> list[str]:
    """The words the model reads in ``text`` (a CJK or Hangul character is one): of ``prepare(text)``,
    taken from ``readings`` so the views the patterns just read are not folded again."""
    return _TOKEN.findall(readings(text)[0])


def grams(folded: str, sizes: tuple[int, ...], tokens: list[str] | None = None) -> set[str]:
    """Character n-grams of ``folded``, its words and word pairs (``w:``), and its concepts (``c:``);
    ``tokens``: ``folded``'s tokens, when the caller has them already."""
    padded = f" {folded} "
    out: set[str] = set()
    for n in sizes:
        out.update(map(padded.__getitem__, map(slice, range(len(padded) - n + 1), range(n, len(padded) + 1))))
    if tokens is None:
        tokens = _TOKEN.findall(folded)
    out.update(["w:" + t for t in tokens])
    out.update([f"w:{a} {b}" for a, b in zip(tokens, tokens[1:])])
    out.update(concepts(tokens))
    return out


def concepts(tokens: list[str]) -> list[str]:
    """The lexicon concepts in ``tokens`` (``c:verbs``) and each concept followed closely by the next
    (``c:verbs>nouns``): the same features for "ignore the previous instructions", "ignora las
    instrucciones anteriores" and "忽略之前的指令", so what the model learns in one language counts in all."""
    table = _concept_table()
    found: list[tuple[int, int, tuple[str, ...]]] = []
    for i, token in enumerate(tokens):
        for phrase, names in table.get(token, ()):
            if tuple(tokens[i : i + len(phrase)]) == phrase:
                found.append((i, i + len(phrase), names))
                break  # the longest phrase starting here (the table lists them longest first)
    out = ["c:" + c for _, _, names in found for c in names]
    last: tuple[int, int, tuple[str, ...]] | None = None
    for item in found:
        if last is not None and item[0] >= last[1] and item[0] - last[1] <= _CONCEPT_GAP:
            out += [f"c:{x}>{y}" for x in last[2] for y in item[2] if x != y]
        if last is None or item[0] >= last[1]:
            last = item
    return out


@lru_cache(maxsize=1)
def _concept_table() -> dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]]:
    """First token → (phrase tokens, its concepts), longest phrase first, from ``families.CONCEPTS``."""
    names: dict[tuple[str, ...], set[str]] = {}
    for concept, phrases in CONCEPTS.items():
        for phrase in phrases:
            if tokens := tuple(_TOKEN.findall(prepare(phrase))):
                names.setdefault(tokens, set()).add(concept)
    table: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    for tokens, concepts_of in names.items():
        table.setdefault(tokens[0], []).append((tokens, tuple(sorted(concepts_of))))
    return {k: tuple(sorted(v, key=lambda item: (-len(item[0]), item))) for k, v in table.items()}


@lru_cache(maxsize=1)
def model() -> Model | None:
    """The shipped model, read once; ``None`` when the weights file is missing."""
    try:
        return Model(json.loads(MODEL_PATH.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None


def match(text: str) -> tuple[str, str, str] | None:
    """``(pattern_id, category, excerpt)`` when the model is confident ``text`` is an attack."""
    current = model()
    if current is None or not text.strip():
        return None
    probability, top = current.score(text)
    if probability < current.threshold(len(text)):
        return None
    cues = ", ".join(repr(g.strip()) for g in top if g.strip())
    return "learned.injection", "learned", f"score {probability:.2f}: {cues}"[:80]
