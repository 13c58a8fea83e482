"""When and how long to wait before retrying a failed model call — one policy for every provider.

The SDKs' own retries are switched off (``max_retries=0``) so that the rule "retry only while
nothing has been shown to the user" and the total time bound hold for both providers alike.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from typing import Callable, Mapping

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``retry-after`` seconds), if any."""
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue  # an HTTP-date: fall back to our own backoff
        if seconds >= 0:
            return seconds
    return None


# Its own generator: a retry in a background thread (a title, a review) never moves the
# process's global random state under code that seeds or checks it.
_JITTER = random.Random()


@dataclass
class RetryPolicy:
    """Exponential backoff with jitter, a bounded number of attempts and a bounded total wait.

    ``sleep``, ``jitter`` and ``clock`` are injectable so tests neither wait nor depend on chance;
    ``sleep=None`` waits in real time, cut short by a cancel.
    """

    max_attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0
    total_budget: float = 90.0
    sleep: Callable[[float], None] | None = None
    jitter: Callable[[], float] = _JITTER.random
    clock: Callable[[], float] = time.monotonic

    def pause(self, seconds: float, cancel: threading.Event | None) -> None:
        """Wait before the next attempt; a real wait ends as soon as ``cancel`` is set."""
        if self.sleep is not None:
            self.sleep(seconds)
        elif cancel is not None:
            cancel.wait(seconds)
        else:
            time.sleep(seconds)

    def delay(self, attempt: int, retry_after: float | None, elapsed: float) -> float | None:
        """Seconds to wait after failed attempt ``attempt`` (1-based), or None to give up.

        ``elapsed`` is the time already spent on this call; the wait never pushes it past
        ``total_budget``.
        """
        if attempt >= self.max_attempts:
            return None
        if retry_after is not None:
            wait = min(retry_after, self.max_delay)
        else:
            backoff = min(self.base_delay * 2 ** (attempt - 1), self.max_delay)
            wait = backoff * (0.5 + self.jitter() / 2)
        if elapsed + wait > self.total_budget:
            return None
        return wait
