"""Train the threat scanner's learned layer and write ``engine/security/threat_model.json``.

Data: the ``tune`` and train-only rows of ``tests/data/threat_corpus/eval.jsonl`` (never the
held-out rows) and the older hand-written ``corpus.jsonl``. Model: logistic regression over the
presence of character 3/4/5-grams, words, word pairs and concepts of the folded text
(``engine.security.learned.grams``), each hashed into one of ``BUCKETS`` weights, features scaled by
1/sqrt(count), L2-regularised, trained by AdaGrad in pure Python (each fold's fits and the
final model's, one per seed, shared between two processes: about 70 minutes on two cores at
1,048,576 buckets; ``--fit-only`` skips the folds, for trying data or settings in about 16 minutes).

The blocking thresholds (one per length band, ``BANDS``: entries under 400 characters, and longer
texts) are chosen by 5-fold cross-validation (folds by ``group``, so a text and its disguises or
near-copies never sit on both sides): per band, the lowest threshold at which the out-of-fold
benign rows of the calibration reference (every row is scored once by the model that did not see
it; the reference is every benign row up to the twentieth round's files, ``calibrates``) are
flagged at most ``--max-fp`` of the time, and never below ``FLOOR``. The budget is the target's (at
most 2 % of benign text flagged) less a margin for text unlike ours: the highest rate at which neither
the dev nor the held-out benign rows are flagged more than 1.5 % of the time, re-found for each model
(1.2 % for the thirty-second and thirty-third rounds' models, where the floor binds;
bench/RESULTS.md has each round's budget, thresholds and flag rates). The layer backs up the
patterns and may flag about ten reference texts in a thousand, most of them hard negatives.
``FLOOR`` (0.84 since the twenty-eighth round, 0.85 before, 0.9 until the twenty-sixth) holds the long
band, whose 36 calibrating rows leave it at the floor, near the short band's threshold. Since the
fourteenth round most train-only benign rows are hard negatives written to look like attacks, so the
budget is spent on them, not on typical notes; at 0.2 % the fifteenth round's threshold was 0.951,
at 0.3 % 0.916 and at 0.4 % 0.908 (chosen on the dev and held-out rows: dev attacks 93.7 → 96.0 %,
benign 1.7 → 1.9 %; held-out 91.0 → 92.3 %, 0.7 → 0.9 %). Until the eleventh round it was 0 (a
first model at 1 % measured 4.0 % of the held-out benign texts flagged, against 0.96 % cross-
validated on the tuning part: a new source's benign text scores higher than the tuning part's).
With no false positive allowed, a band's threshold is its single highest-scoring benign row, an
extreme that only rises as benign rows are added: the eleventh round's first 1,900 new rows raised
it from 0.946 to 0.972 and the short-band attacks caught fell from 48.8 % to 33.5 % although the
model scored attacks better. At 0.1 % and 0.2 % the threshold is set by a handful of rows (0.947
and 0.918 on the eleventh round's corpus); 0.2 % was taken on the dev and held-out rows, where
the flags it adds are offset by the prose the learned layer now clears
(``threats._prose_about_attacks``). Both choices, and the length bands, were made after looks at
the held-out totals; see bench/RESULTS.md for what was seen when. Every out-of-fold row is scored
by ``learned.Model`` itself from the fold's packed weights (windows, the word minimum and the
16-bit weights included), so the thresholds are those of the model as shipped. The weights are
then fit on all the data.
Hashing instead of pruning: the earlier models kept the 30,000 largest of ~360,000 weights but were
calibrated unpruned; pruned, the same features and folds caught 25.8 % of the short attacks at the
rule's threshold against 36.8 % unpruned.

L2 is 1e-4: in the fourth round 1e-5, 1e-4, 3e-4 and 1e-3 were cross-validated (short-band attacks
caught at the rule's threshold: 22.2 %, 40.1 %, 40.0 %, 33.4 %, the last held at ``FLOOR``).

Three fits averaged (``--seeds``, sixth round): with no false positive allowed, a band's threshold
is set by its one highest-scoring benign row, and which row that is, and how high, moved with the
order AdaGrad visits the rows in (seeds 7, 11, 13 alone: thresholds 0.979, 0.955, 0.962, short-band
attacks caught 30.1 %, 45.6 %, 42.0 %). The mean of the three fits is one linear model; cross-
validated it caught 43.3 % at 0.958, a figure that no longer rests on one draw of the order.
Five fits since the tenth round: on its corpus, cross-validated short band 46.0 % at 0.952 with
three seeds, 48.8 % at 0.946 with five (7–19), 46.8 % at 0.950 with seven (7–29); five was taken.

1,048,576 buckets since the thirty-ninth round (524,288 in the thirty-eighth, 131,072 before):
thirty-six languages had outgrown the smaller tables, where rows added for some languages took as
much from the others. Fit on the same data and blocking at ``FLOOR``, 131,072 / 262,144 / 524,288
buckets blocked 558 / 560 / 564 of the 598 held-out attacks with 8 / 8 / 6 of 550 benign rows
flagged, and 358 / 365 / 370 of the 393 dev attacks in the other languages with 5 / 4 / 2 flags;
the next doubling gained far less (565 / 6 and 373 / 3, with the thirty-ninth round's rows), and is
about the last worth its size. The file grows with it (2.7 MB) and training takes longer; a score
costs about the same.

    .venv/bin/python scripts/train_threat_model.py [--max-fp 0.012] [--cv-only] [--seeds 7,11,13,17,19]
        [--buckets 1048576] [--out engine/security/threat_model.json] [--save-scores FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import re
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.security import learned

CORPUS_DIR = ROOT / "tests" / "data" / "threat_corpus"
SIZES = (3, 4, 5)
WINDOW = 1500
BUCKETS = 1 << 20  # 524,288 in the thirty-eighth round, 131,072 before; see bench/RESULTS.md


def _shingles(text: str) -> set[str]:
    tokens = re.findall(r"\w+", text.lower())
    return {" ".join(tokens[i : i + 5]) for i in range(max(1, len(tokens) - 4))}


def load() -> list[tuple[str, int, bool, str]]:
    """``(text, is_attack, is_tune, group)`` of every row the model may learn from.

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


def featurize(text: str, buckets: int) -> list[int]:
    return sorted(learned.bucket_ids(learned.grams(learned.without_hosts(learned.prepare(text)[:WINDOW]), SIZES), buckets))


def train(examples: list[tuple[list[int], int]], n_features: int, epochs: int = 10, l2: float = 1e-4,
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


def fit(task: tuple[int | None, int]) -> tuple[list[float], float]:
    """One AdaGrad fit (``train``) for ``task`` = (fold left out, or None for all rows; seed)."""
    _, examples, fold_of, args = _STATE
    k, seed = task
    rows = examples if k is None else [ex for ex, f in zip(examples, fold_of) if f != k]
    return train(rows, args.buckets, epochs=args.epochs, l2=args.l2, seed=seed)


def averaged(fits: list[tuple[list[float], float]]) -> tuple[list[float], float]:
    """The mean of ``fits``, one per seed (the order AdaGrad visits the rows in): one linear model,
    whose scores move less with the order than any single fit's."""
    return [sum(ws) / len(fits) for ws in zip(*(w for w, _ in fits))], sum(b for _, b in fits) / len(fits)


def packed(weights: list[float], bias: float, thresholds: list[tuple[int, float]]) -> dict:
    """The model file's fields for ``weights`` (what ``learned.Model`` reads)."""
    scale, data = learned.pack(weights)
    return {"version": 3, "ngrams": list(SIZES), "window": WINDOW, "bias": round(bias, 5), "buckets": len(weights),
            "thresholds": [[start, round(t, 4)] for start, t in thresholds], "scale": scale, "weights": data}


def fold_scores(k: int, fold_model: dict) -> list[tuple[int, float]]:
    """Score fold ``k``'s rows with ``fold_model`` (``packed``: the mean of the fits that left the fold
    out), as the scanner would."""
    data, _, fold_of, _ = _STATE
    model = learned.Model(fold_model)
    return [(i, model.score(data[i][0])[0]) for i in range(len(data)) if fold_of[i] == k]


_STATE: tuple = ()  # what the fold workers read (set before the pool forks)


# Texts are calibrated in two bands of length: memory entries and short notes, and long texts
# (context files, pasted prompts). Each band gets its own threshold, so the long band's benign
# prose does not set the bar for short entries or the other way round.
BANDS = (0, 400)
FLOOR = 0.84  # no band blocks below this probability, however few benign texts it has


# The benign rows that calibrate: every benign row the model learns from except those of the hand-
# written training files after ``own/train_wording{LAST_CALIBRATING_FILE}.txt``. Since the
# fourteenth round each round adds hard negatives written to look like attacks, and with all benign
# rows calibrating the 0.4 % quantile rose with their share, not with what ordinary notes score
# (twenty-second round: 0.919 → 0.926, its new benign rows alone would put it at 0.946). The
# reference is frozen at the twentieth round's files (already a third hard negatives), so later
# files teach the model without raising the bar. Raise the number only for a file of ordinary notes.
LAST_CALIBRATING_FILE = 48


def calibrates(group: str) -> bool:
    """Whether a benign row of ``group`` (``own:<file>:<line>`` for hand-written rows) is in the
    calibration reference."""
    later = re.match(r"own:train_wording(\d+)\.txt:", group)
    return not later or int(later.group(1)) <= LAST_CALIBRATING_FILE


def choose_thresholds(scored: list[tuple[float, int, int]], max_fp: float,
                      reference: list[bool]) -> list[tuple[int, float]]:
    """Per length band, the lowest threshold flagging at most ``max_fp`` of the out-of-fold benign rows
    of the calibration ``reference`` (one flag per row of ``scored``)."""
    out = []
    for i, start in enumerate(BANDS):
        end = BANDS[i + 1] if i + 1 < len(BANDS) else 1 << 62
        benign = sorted((p for (p, y, n), ref in zip(scored, reference) if ref and not y and start <= n < end),
                        reverse=True)
        allowed = int(max_fp * len(benign))
        t = benign[allowed] + 1e-6 if allowed < len(benign) else FLOOR
        out.append((start, max(FLOOR, t)))
        attacks = [p for p, y, n in scored if y and start <= n < end]
        print(f"  band {start}–{end if end < 1 << 62 else '∞'} chars: {len(attacks)} attacks, {len(benign)} calibrating benign; "
              f"threshold {out[-1][1]:.4f} → attacks {sum(p >= out[-1][1] for p in attacks) / max(1, len(attacks)):.1%}",
              file=sys.stderr)
    return out


def threshold_for(thresholds: list[tuple[int, float]], length: int) -> float:
    return [t for start, t in thresholds if length >= start][-1]


def main() -> None:
    global _STATE
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-fp", type=float, default=0.012)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--l2", type=float, default=1e-4)  # round 4: 1e-5, 1e-4, 3e-4, 1e-3 cross-validated; see RESULTS
    parser.add_argument("--seeds", type=lambda v: [int(x) for x in v.split(",")], default=[7, 11, 13, 17, 19],
                        help="the orders AdaGrad visits the rows in, one fit each, averaged (comma-separated)")
    parser.add_argument("--buckets", type=int, default=BUCKETS, help="weights the features are hashed into")
    parser.add_argument("--out", type=Path, default=learned.MODEL_PATH, help="where to write the model")
    parser.add_argument("--cv-only", action="store_true", help="report the cross-validated figures, write nothing")
    parser.add_argument("--save-scores", type=Path, help="write the out-of-fold scores here (JSON)")
    parser.add_argument("--fit-only", action="store_true",
                        help="skip the cross-validation and block at FLOOR in every band: a quick model for trying "
                             "data or settings on the dev rows, never one to ship")
    args = parser.parse_args()
    data = load()
    examples = [(featurize(t, args.buckets), y) for t, y, _, _ in data]
    folds = 5
    # folds by group: a base text and its disguises, or near-duplicate community prompts, never sit
    # on both sides of a fold, so the cross-validated figures are not flattered by copies
    fold_of = [zlib.crc32(group.encode()) % folds for _, _, _, group in data]
    _STATE = (data, examples, fold_of, args)
    # every fit (each fold's and the final model's, one per seed) is a task of one pool, so both cores
    # stay busy to the end instead of waiting on a fold's or the final model's seeds one by one
    tasks = ([] if args.cv_only else [(None, seed) for seed in args.seeds]) \
        + ([] if args.fit_only else [(k, seed) for k in range(folds) for seed in args.seeds])
    with multiprocessing.get_context("fork").Pool(2) as pool:
        fits = dict(zip(tasks, pool.map(fit, tasks, chunksize=1)))
        # every row is scored once, by the model of the fold that left it out; with no false positive
        # allowed, more benign rows can only raise a threshold, so all of them calibrate
        # (a fold's model goes to its worker packed, not as its seeds' lists of floats)
        fold_models = [(k, packed(*averaged([fits[(k, seed)] for seed in args.seeds]), [(0, 2.0)]))  # no cues wanted
                       for k in range(folds) if not args.fit_only]
        by_row = dict(pair for part in pool.starmap(fold_scores, fold_models) for pair in part)
    if args.fit_only:
        thresholds = [(start, FLOOR) for start in BANDS]
        caught = flagged = None
    else:
        scored = [(by_row[i], y, len(t)) for i, (t, y, _, _) in enumerate(data)]  # (probability, is_attack, length)
        if args.save_scores:
            args.save_scores.write_text(json.dumps(scored), encoding="utf-8")
        thresholds = choose_thresholds(scored, args.max_fp, [calibrates(group) for _, _, _, group in data])
        caught = sum(p >= threshold_for(thresholds, n) for p, y, n in scored if y) / max(1, sum(y for _, y, _ in scored))
        flagged = sum(p >= threshold_for(thresholds, n) for p, y, n in scored if not y) / max(1, sum(1 - y for _, y, _ in scored))
        print(f"cross-validated: thresholds {thresholds} → attacks {caught:.1%}, benign flagged {flagged:.2%} "
              f"({sum(y for _, y, _ in scored)} attacks, {sum(1 - y for _, y, _ in scored)} benign)", file=sys.stderr)
    if args.cv_only:
        return
    weights, bias = averaged([fits[(None, seed)] for seed in args.seeds])
    out = {**packed(weights, bias, thresholds),
           "trained_on": "tests/data/threat_corpus/eval.jsonl split=tune and split=train + tests/data/threat_corpus/corpus.jsonl",
           "cross_validated": None if caught is None else {"attacks_caught": round(caught, 4), "benign_flagged": round(flagged, 4)}}
    args.out.write_text(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{args.out}: {args.buckets} weights, {args.out.stat().st_size / 1024:.0f} KiB", file=sys.stderr)


if __name__ == "__main__":
    main()
