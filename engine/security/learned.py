"""The learned layer: a linear model over character n-grams, for attacks no pattern describes.

The model is logistic regression over the presence of character 3-, 4- and 5-grams, words and
word pairs of the folded text (``normalize.fold`` then the look-alike skeleton), trained by
``scripts/train_threat_model.py`` on the tuning and train-only parts of
``tests/data/threat_corpus/eval.jsonl`` and the older hand-written corpus (never the held-out
part); its weights ship as ``threat_model.json`` beside this file (n-gram → weight, pruned to the
largest). Pure Python: a score is one dictionary look-up per n-gram, summed with ``math.fsum`` so
the result does not depend on set order (hash seeds): the same text always gets the same verdict.

A long text is scored in windows of ``window`` characters (overlapping by a fifth), and its score
is the highest window's, so a payload inside a long file is not diluted and the cost stays linear.
The scanner consults this layer only when no pattern hit, and blocks at the threshold of the
text's length band (``thresholds``: chosen by cross-validation on the tuning part so that no
out-of-fold tuning text is flagged); the hit is ``learned.injection`` with the window's most
telling n-grams as the excerpt.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path

from engine.security import normalize

MODEL_PATH = Path(__file__).with_name("threat_model.json")
MIN_WORDS = 4  # distinct words a window needs before the model's score counts


class Model:
    def __init__(self, data: dict) -> None:
        self.sizes: tuple[int, ...] = tuple(data["ngrams"])
        self.window: int = data["window"]
        self.bias: float = data["bias"]
        # (first length, threshold) bands, longest last; version 1 files had one threshold
        self.thresholds: list[tuple[int, float]] = [tuple(b) for b in data.get("thresholds", [[0, data.get("threshold", 1.0)]])]
        self.weights: dict[str, float] = data["weights"]

    def threshold(self, length: int) -> float:
        """The blocking probability for a text of ``length`` characters."""
        return [t for start, t in self.thresholds if length >= start][-1]

    def features(self, text: str) -> set[str]:
        return grams(text, self.sizes)

    def score_window(self, folded: str) -> tuple[float, list[str]]:
        feats = grams(folded, self.sizes)
        if sum(1 for g in feats if g.startswith("w:") and " " not in g) < MIN_WORDS:
            return 0.0, []  # too few words to judge: "note 00000 xxxx…" is not language the model knows
        w = self.weights
        # fsum: exact, so the score does not depend on the set's (hash-seeded) order: deterministic
        z = self.bias + math.fsum(filter(None, map(w.get, feats))) / math.sqrt(len(feats))
        probability = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
        if probability < min(t for _, t in self.thresholds):  # the cues are only wanted for a hit
            return probability, []
        top = [g for v, g in sorted(((w[g], g) for g in feats if g in w), reverse=True)[:4] if v > 0]
        return probability, top

    def score(self, text: str) -> tuple[float, list[str]]:
        """The highest window probability of ``text`` and that window's strongest n-grams."""
        folded = prepare(text)
        step = max(1, self.window - self.window // 5)
        best: tuple[float, list[str]] = (0.0, [])
        for start in range(0, max(1, len(folded) - self.window // 5), step):
            result = self.score_window(folded[start : start + self.window])
            if result[0] > best[0]:
                best = result
        return best


def prepare(text: str) -> str:
    """The form the model reads: folded, with look-alike letters mapped to ASCII."""
    folded = normalize.fold(text)
    skel = normalize.skeleton(folded)
    return skel if skel is not None else folded


_WORD = re.compile(r"\w+")


def grams(folded: str, sizes: tuple[int, ...]) -> set[str]:
    """Character n-grams of ``folded`` plus its words and word pairs (prefixed ``w:``)."""
    padded = f" {folded} "
    out: set[str] = set()
    for n in sizes:
        out.update(map(padded.__getitem__, map(slice, range(len(padded) - n + 1), range(n, len(padded) + 1))))
    tokens = _WORD.findall(folded)
    out.update(["w:" + t for t in tokens])
    out.update([f"w:{a} {b}" for a, b in zip(tokens, tokens[1:])])
    return out


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
