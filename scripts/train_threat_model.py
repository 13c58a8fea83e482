"""Train the threat scanner's learned layer and write ``engine/security/threat_model.json``.

Data: the ``tune`` and train-only rows of ``tests/data/threat_corpus/eval.jsonl`` (never the
held-out rows) and the older hand-written ``corpus.jsonl``. Model: logistic regression over the
presence of character 3/4/5-grams, words and word pairs of the folded text (``engine.security.learned.grams``), features scaled by
1/sqrt(count), L2-regularised, trained by AdaGrad in pure Python (about a minute).

The blocking threshold is chosen by 5-fold cross-validation (folds by ``group``, so a text and its
disguises or near-copies never sit on both sides): the lowest threshold at which the out-of-fold
*tune* benign rows (the realistic memory text, not the easy train-only catalogue and README rows)
are flagged at most ``--max-fp`` of the time (default 1 %), so the held-out part never informs it. The weights are then fit on all the data and pruned
to the ``--keep`` largest.

    .venv/bin/python scripts/train_threat_model.py [--max-fp 0.01] [--keep 30000]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.security import learned  # noqa: E402

CORPUS_DIR = ROOT / "tests" / "data" / "threat_corpus"
SIZES = (3, 4, 5)
WINDOW = 1500


def _shingles(text: str) -> set[str]:
    tokens = re.findall(r"\w+", text.lower())
    return {" ".join(tokens[i : i + 5]) for i in range(max(1, len(tokens) - 4))}


def load() -> list[tuple[str, int, bool, str]]:
    """``(text, is_attack, calibrates, group)``: tune rows calibrate the threshold; train-only rows do not.

    Rows of the older ``corpus.jsonl`` that share more than half their 5-word shingles with a
    held-out row are left out, so nothing held out is learned second-hand.
    """
    rows = [json.loads(l) for l in (CORPUS_DIR / "eval.jsonl").read_text(encoding="utf-8").split("\n") if l.strip()]
    data = [(r["text"], int(r["label"] == "attack"), r["split"] == "tune", r["group"])
            for r in rows if r["split"] in ("tune", "train")]
    held = [_shingles(r["text"]) for r in rows if r["split"] == "heldout"]
    old = [json.loads(l) for l in (CORPUS_DIR / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
    for n, r in enumerate(old):
        sh = _shingles(r["text"])
        if any(len(sh & h) / min(len(sh), len(h)) > 0.5 for h in held if h):
            continue
        data.append((r["text"], int(r["label"] == "attack"), True, f"corpus:{n}"))
    return data


def featurize(text: str) -> list[str]:
    return sorted(learned.grams(learned.prepare(text)[:WINDOW], SIZES))


def train(examples: list[tuple[list[int], int]], n_features: int, epochs: int = 10, l2: float = 1e-5,
          rate: float = 0.5, seed: int = 7) -> tuple[list[float], float]:
    """AdaGrad logistic regression with class-balanced weights; features are integer ids."""
    weights = [0.0] * n_features
    squares = [1e-8] * n_features
    bias, bias_sq = 0.0, 1e-8
    order = list(range(len(examples)))
    rng = random.Random(seed)
    pos = sum(y for _, y in examples)
    weight_of = {1: len(examples) / (2 * max(1, pos)), 0: len(examples) / (2 * max(1, len(examples) - pos))}
    sqrt = math.sqrt
    for _ in range(epochs):
        rng.shuffle(order)
        for i in order:
            feats, y = examples[i]
            if not feats:
                continue
            scale = 1.0 / sqrt(len(feats))
            z = bias + scale * sum(weights[f] for f in feats)
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            g = (p - y) * weight_of[y]
            bias_sq += g * g
            bias -= rate * g / sqrt(bias_sq)
            gs = g * scale
            for f in feats:
                w = weights[f]
                grad = gs + l2 * w
                sq = squares[f] + grad * grad
                squares[f] = sq
                weights[f] = w - rate * grad / sqrt(sq)
    return weights, bias


def probability(weights: list[float], bias: float, feats: list[int]) -> float:
    if not feats:
        return 0.0
    z = bias + sum(weights[f] for f in feats) / math.sqrt(len(feats))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-fp", type=float, default=0.01)
    parser.add_argument("--keep", type=int, default=30000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--l2", type=float, default=1e-5)
    parser.add_argument("--cv-only", action="store_true", help="report the cross-validated figures, write nothing")
    args = parser.parse_args()
    data = load()
    ids: dict[str, int] = {}
    examples = [([ids.setdefault(g, len(ids)) for g in featurize(t)], y) for t, y, _, _ in data]
    calibrates = [c for _, _, c, _ in data]
    names = [g for g, _ in sorted(ids.items(), key=lambda kv: kv[1])]
    folds = 5
    # folds by group: a base text and its disguises, or near-duplicate community prompts, never sit
    # on both sides of a fold, so the cross-validated figures are not flattered by copies
    fold_of = [zlib.crc32(group.encode()) % folds for _, _, _, group in data]
    scores: list[tuple[float, int]] = []
    for k in range(folds):
        w, b = train([ex for ex, f in zip(examples, fold_of) if f != k], len(ids), epochs=args.epochs, l2=args.l2)
        scores += [(probability(w, b, examples[i][0]), examples[i][1]) for i in range(len(examples)) if fold_of[i] == k and calibrates[i]]
    benign = sorted((p for p, y in scores if y == 0), reverse=True)
    allowed = int(args.max_fp * len(benign))
    threshold = max(0.5, benign[allowed] + 1e-6 if allowed < len(benign) else 0.5)
    attacks = [p for p, y in scores if y == 1]
    caught = sum(p >= threshold for p in attacks) / len(attacks)
    flagged = sum(p >= threshold for p in benign) / len(benign)
    print(f"cross-validated: threshold {threshold:.3f} → attacks {caught:.1%}, benign flagged {flagged:.2%} "
          f"({len(attacks)} attacks, {len(benign)} benign)", file=sys.stderr)
    if args.cv_only:
        return
    weights, bias = train(examples, len(ids), epochs=args.epochs, l2=args.l2)
    kept = dict(sorted(((names[i], w) for i, w in enumerate(weights)), key=lambda kv: abs(kv[1]), reverse=True)[: args.keep])
    out = {"version": 1, "ngrams": list(SIZES), "window": WINDOW, "bias": round(bias, 5), "threshold": round(threshold, 4),
           "trained_on": "tests/data/threat_corpus/eval.jsonl split=tune and split=train + tests/data/threat_corpus/corpus.jsonl",
           "cross_validated": {"attacks_caught": round(caught, 4), "benign_flagged": round(flagged, 4)},
           "weights": {g: round(v, 4) for g, v in sorted(kept.items())}}
    learned.MODEL_PATH.write_text(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{learned.MODEL_PATH.relative_to(ROOT)}: {len(kept)} weights, "
          f"{learned.MODEL_PATH.stat().st_size / 1024:.0f} KiB", file=sys.stderr)


if __name__ == "__main__":
    main()
