"""A screen's frames at the next free slot after a pause, not one slot later.

Textual paints a screen from a timer that ticks at most ``MAX_FPS`` times a second and is paused
while nothing changes. After a pause, its loop skips the slots it missed, and (Textual 8.2) one
more: a frame asked for soon after the first frame that follows a pause waits 17–33 ms at 60
fps instead of 0–17. That is a whole extra frame, for nothing, on the changes that come just after
another: a preview's page drawn after the key's own frame, the status of a finished reply after
its last line, search results after the typed key's echo. This timer skips to the next slot only.
"""

from __future__ import annotations

from textual import _time
from textual.screen import UPDATE_PERIOD
from textual.timer import EventTargetGone, Timer


class NextSlotTimer(Timer):
    """A repeating timer that, after a pause, ticks at the next slot of its interval.

    Textual's ``Timer._run`` with the skip's count corrected; nothing else differs."""

    async def _run(self) -> None:
        count = 0
        interval = self._interval
        await self._active.wait()
        start = _time.get_time()
        while self._repeat is None or count <= self._repeat:
            next_tick = start + (count + 1) * interval
            now = _time.get_time()
            if self._skip and next_tick < now:
                count = int((now - start) / interval)  # the slot under way: the next one is ahead
                continue
            await _time.sleep(max(0.0, next_tick - now))
            count += 1
            await self._active.wait()
            if self._reset:
                start, count, self._reset = _time.get_time(), 0, False
                continue
            try:
                await self._tick(next_timer=next_tick, count=count)
            except EventTargetGone:
                break


class PromptFrames:
    """Mixed into a ``Screen``: its frames are paced by a ``NextSlotTimer``.

    Textual's ``Screen`` creates its frame timer in the ``_update_timer`` property; this one
    creates the same timer (same interval, name, paused until a change) of the class above."""

    _frame_timer: Timer | None = None

    @property
    def _update_timer(self) -> Timer:
        if self._frame_timer is None:
            timer = NextSlotTimer(self, UPDATE_PERIOD, name="screen_update",  # type: ignore[arg-type]
                                  callback=self._on_timer_update, pause=True)  # type: ignore[attr-defined]
            timer._start()
            self._timers.add(timer)  # type: ignore[attr-defined]  # stopped with the screen's own
            self._frame_timer = timer
        return self._frame_timer
