"""Per-turn bars of the prompt: read from the cache, not read from it, and the reply's output.

One bar per user turn (a turn's tool rounds are summed), all on one scale, so a turn whose
prefix broke stands out as a long uncached stretch.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from engine.usage import RequestRecord
from hermes_tui.usage_text import share

BAR = "█"
CACHED, UNCACHED, OUTPUT = "$success", "$warning", "$secondary"
LABEL_WIDTH = 9  # "turn 123 "
FIGURES_WIDTH = 48  # the figures after a bar, " 12,345 in · 91% cached · 1,234 out · 3 calls"


@dataclass
class TurnBar:
    label: str
    cached: int = 0
    uncached: int = 0
    output: int = 0
    requests: int = 0
    broken: bool = False  # a request of the turn broke the prefix where the invariant forbids it

    @property
    def total(self) -> int:
        return self.cached + self.uncached + self.output


def turn_bars(records: list[RequestRecord]) -> list[TurnBar]:
    """Consecutive requests of one session and turn make one bar."""
    bars: list[TurnBar] = []
    key: tuple[str, int] | None = None
    for record in records:
        if (record.session_id, record.turn) != key:
            key = (record.session_id, record.turn)
            bars.append(TurnBar(f"turn {record.turn}"))
        bar = bars[-1]
        bar.cached += record.usage.cache_read_tokens
        bar.uncached += record.uncached_tokens
        bar.output += record.usage.output_tokens
        bar.requests += 1
        bar.broken |= record.prefix_break is not None and not record.prefix_break.expected
    return bars


def _cells(tokens: int, scale: float) -> int:
    return round(tokens * scale) if tokens else 0


def chart(bars: list[TurnBar], width: int) -> Content:
    """The legend and one line per turn, scaled so the largest turn fills ``width`` cells."""
    legend = Content.assemble((BAR * 2, CACHED), " cached  ", (BAR * 2, UNCACHED), " uncached  ",
                              (BAR * 2, OUTPUT), " output   (prompt and output tokens per turn)")
    if not bars:
        return Content.assemble(legend, "\n\n", ("no requests yet", "dim"))
    scale = width / max(1, max(bar.total for bar in bars))
    lines = [legend]
    for bar in bars:
        prompt = bar.cached + bar.uncached
        rounds = f" · {bar.requests} calls" if bar.requests > 1 else ""
        lines.append(Content.assemble(
            f"{bar.label:<{LABEL_WIDTH}}", (BAR * _cells(bar.cached, scale), CACHED),
            (BAR * _cells(bar.uncached, scale), UNCACHED), (BAR * _cells(bar.output, scale), OUTPUT),
            (f"  {prompt:,} in · {share(bar.cached / prompt if prompt else 0.0)} cached · {bar.output:,} out{rounds}",
             "dim"),
            (" · prefix broken", "bold $error") if bar.broken else ""))
    return Content("\n").join(lines)


class CacheChart(Widget):
    """The bars of ``turn_bars``, drawn to the widget's width when it is drawn.

    Its height is one line per bar and the legend, whatever the width: drawn at render time
    rather than set from a resize, the chart never keeps the height of a size it had before (a
    scrollbar coming in at 80×24 resized it inside a layout pass, which left it one line high).
    """

    DEFAULT_CSS = "CacheChart { height: auto; padding: 0 1; }"

    def __init__(self, records: list[RequestRecord], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.bars = turn_bars(records)

    def set_records(self, records: list[RequestRecord]) -> None:
        self.bars = turn_bars(records)
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1 + (len(self.bars) if self.bars else 2)

    def render(self) -> Content:
        return chart(self.bars, max(10, self.content_size.width - LABEL_WIDTH - FIGURES_WIDTH))
