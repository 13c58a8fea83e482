"""Scrubber throughput: StreamingContextScrubber at 1-, 16- and 256-char chunks vs re.sub over the whole text.

Run: .venv/bin/python -m bench.bench_scrub [--mb 2]
Upstream Hermes' scrubber does 0.95 / 5.7 / 64 MB/s at 1 / 16 / 256-char chunks on this machine
class; the target is at least twice that. The ratio column compares with ``sanitize_context``
(one ``re.sub``) over the joined text, measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from bench.timing import best_of
from engine.scrub import StreamingContextScrubber, build_recall_fence, sanitize_context

UPSTREAM_MBS = {1: 0.95, 16: 5.7, 256: 64.0}


def sample_text(megabytes: float, dense: bool) -> str:
    """A reply-like text with a leaked fence every ~2 KB.

    ``dense=False``: Markdown prose with a short code block (about one ``<`` per 500 chars, like
    typical replies). ``dense=True``: code and HTML-ish prose with a ``<`` every ~40 chars and
    inline tag mentions — the scrubber's slow path on nearly every chunk.
    """
    if dense:
        paragraph = (
            "The deploy script reads the config, checks the <b>staging</b> host and retries twice.\n"
            "    def run(x):\n        return x < 3 and x > 0  # comparisons are common in code\n"
            "Prose may mention the <memory-context> tag inline; that stays visible.\n"
        )
    else:
        paragraph = (
            "## Deploying the service\n\nThe deployment script reads `config.yaml`, checks that the staging "
            "host answers on port 2222 and then retries the upload twice before giving up. Each step logs "
            "what it did, so a failed run can be resumed from the last good step without redoing the rest.\n\n"
            "```python\nfor attempt in range(3):\n    if upload(path) or attempt < 2:\n        break\n```\n\n"
            "- keep the key in `~/.ssh/staging_ed25519`\n- run the smoke tests after each deploy\n"
        )
    leak = "\n" + build_recall_fence("user prefers tea; project codename Falcon") + "\n"
    block = paragraph * max(1, 2000 // len(paragraph)) + leak
    return block * max(1, int(megabytes * 1_000_000 / len(block)))


class _NoopScrubber:
    def feed(self, chunk: str) -> str:
        return chunk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=2.0, help="size of the sample text in MB")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"# scrubber bench — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, best of {args.runs}")
    for dense in (False, True):
        run_sample(sample_text(args.mb, dense), "tag-dense code" if dense else "prose (typical reply)", args.runs)


def run_sample(text: str, label: str, runs: int) -> None:
    size_mb = len(text.encode()) / 1e6
    expected = sanitize_context(text)
    whole = best_of(lambda: sanitize_context(text), runs)
    print(f"\n## {label}: {size_mb:.2f} MB, {text.count('<') / len(text) * 1000:.1f} '<' per 1,000 chars")
    print(f"re.sub over the joined text (sanitize_context): {size_mb / whole:.1f} MB/s\n")
    print("| chunk | MB/s | upstream MB/s | × upstream | stream time ÷ re.sub time | no-op feed MB/s (harness ceiling) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for size in (1, 16, 256):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]

        def run() -> str:
            scrubber = StreamingContextScrubber()
            feed = scrubber.feed
            return "".join([feed(c) for c in chunks]) + scrubber.flush()

        def noop() -> str:  # the same loop around a feed that does nothing: the machine's ceiling
            feed = _NoopScrubber().feed
            return "".join([feed(c) for c in chunks])

        assert run() == expected, f"streamed output differs from sanitize_context at {size}-char chunks"
        elapsed = best_of(run, runs)
        ceiling = size_mb / best_of(noop, runs)
        mbs = size_mb / elapsed
        print(f"| {size} | {mbs:.2f} | {UPSTREAM_MBS[size]} | {mbs / UPSTREAM_MBS[size]:.1f}× | {elapsed / whole:.2f} "
              f"| {ceiling:.1f} |")


if __name__ == "__main__":
    main()
