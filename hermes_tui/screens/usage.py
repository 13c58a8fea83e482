"""``/usage``: the prompt-cache inspector — every request of the session, what the cache served,
what it cost, and where a request's prefix stopped matching the one before.

Figures are the provider's own (``engine.usage.RequestRecord``); costs are estimates from the
price table. A resumed session shows its earlier requests too (stored in ``state.db``), and those
of the sessions it continues. A prefix break is shown with its position, the part it falls in and the bytes on
either side, as data: the excerpts are request text (the model's and the user's), shown literally.
"""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

from engine.pricing import LOCAL_SERVER, PRICES_AS_OF
from engine.prompt.prefix import PrefixBreak
from engine.usage import RequestRecord, total_cost
from hermes_tui.screens.styled_once import StyledOnceScreen
from hermes_tui.usage_text import cost_text, money, share
from hermes_tui.widgets.cache_chart import CacheChart
from hermes_tui.widgets.footer import CoalescingFooter
from hermes_tui.widgets.literal import literal_line

COLUMNS = ("#", "Turn", "Input", "Cache read", "Cache write", "Cached", "Output", "Est. cost", "Saved", "Prefix")


def prefix_label(record: RequestRecord) -> Text:
    """The Prefix column: kept, an expected break, or a break the invariant forbids (a Rich
    ``Text``, which a table cell takes as it is; the part names are ours)."""
    broke = record.prefix_break
    if record.number == 1:
        return Text("first", style="dim")
    if not record.compared:
        return Text("not compared", style="dim")
    if broke is None:
        return Text("kept", style="green")
    if broke.expected:
        return Text(f"expected · {broke.part}", style="dim")
    return Text(f"BROKEN · {broke.part} @ {broke.offset:,}", style="bold red")


def _row(record: RequestRecord) -> list[Text]:
    usage, cost = record.usage, record.cost
    figures = [str(record.number), str(record.turn), f"{usage.input_tokens:,}", f"{usage.cache_read_tokens:,}",
               f"{usage.cache_write_tokens:,}", share(record.cached_share), f"{usage.output_tokens:,}",
               "—" if cost is None else money(cost.usd), "—" if cost is None else money(cost.saved_usd)]
    return [*(Text(value) for value in figures), prefix_label(record)]


def break_detail(record: RequestRecord) -> Content:
    """What the highlighted request's prefix break was, with the bytes either side (as data)."""
    broke: PrefixBreak | None = record.prefix_break
    if not record.compared and record.number > 1:
        return Content.styled(f"Request {record.number}: the first since the session was opened in this run; request "
                              f"{record.number - 1}'s bytes are gone (only the last request's are kept, in memory), "
                              "so they were not compared.", "dim")
    if broke is None:
        first = record.number == 1
        return Content.styled(f"Request {record.number}: " + (
            "the first of the session; the next one should start with all of it." if first
            else f"request {record.number - 1} is a prefix of it, byte for byte."), "dim")
    verdict = ("expected", "bold") if broke.expected else ("NOT expected", "bold $error")
    return Content("\n").join([
        Content.assemble(f"Request {record.number} differs from request {record.number - 1} at byte {broke.offset:,} — ",
                         literal_line(broke.part, "bold"), f", byte {broke.offset_in_part:,} of it: ", verdict,
                         f" — {broke.reason}."),
        Content.assemble(("  shared  ", "dim"), literal_line(broke.shared)),
        Content.assemble(("  before  ", "dim"), literal_line(broke.before)),
        Content.assemble(("  after   ", "dim"), literal_line(broke.after)),
    ])


def summary(records: list[RequestRecord], priced_as: str | None, context: str) -> Content:
    """Totals of the session's requests, what they cost, and whether the prefix held."""
    if not records:
        return Content.assemble(context, "\n", ("No requests in this session yet: send a message, then r.", "dim"))
    prompt = sum(r.usage.input_tokens for r in records)
    read = sum(r.usage.cache_read_tokens for r in records)
    written = sum(r.usage.cache_write_tokens for r in records)
    output = sum(r.usage.output_tokens for r in records)
    broken = sum(1 for r in records if r.prefix_break is not None and not r.prefix_break.expected)
    expected = sum(1 for r in records if r.prefix_break is not None and r.prefix_break.expected)
    if priced_as is None:
        priced = Content("no price for this model (add it under pricing.models)")
    elif priced_as == LOCAL_SERVER:
        priced = Content("a local server costs nothing")
    else:
        priced = Content.assemble("priced as ", literal_line(priced_as), f", list prices as of {PRICES_AS_OF}")
    breaks = (Content.styled(f"{broken} unexpected prefix break(s)", "bold $error") if broken
              else Content.styled("prefix kept", "$success"))
    return Content("\n").join([
        Content(context),
        Content(f"{len(records)} request{'s' if len(records) != 1 else ''} · prompt {prompt:,} tokens, {share(read / prompt if prompt else 0.0)} "
                f"from the cache ({read:,} read, {written:,} written) · output {output:,}"),
        Content.assemble(f"estimated {cost_text(total_cost(records))} · ", priced, " · ", breaks,
                         f" · {expected} expected" if expected else ""),
    ])


class UsageScreen(StyledOnceScreen[None]):
    """The session's requests: summary, per-turn chart, one row per request, the break detail."""

    CSS_PATH = "usage.tcss"
    BINDINGS = [
        Binding("escape", "close", "Back"),
        Binding("r", "reload", "Refresh"),
    ]

    def __init__(self, records: Callable[[], list[RequestRecord]], *, label: str, priced_as: str | None,
                 context: str) -> None:
        """``records`` reads the live meter; ``label`` is the session's title or id (data);
        ``context`` says how full the context window is."""
        super().__init__()
        self.read_records = records
        self.records = list(records())
        self.label = label
        self.priced_as = priced_as
        self.context = context

    def compose(self) -> ComposeResult:
        yield Static(Content.assemble("Prompt cache — ", literal_line(self.label)), id="usage-title")
        with VerticalScroll(id="usage-body"):
            yield Static(summary(self.records, self.priced_as, self.context), id="usage-summary")
            yield CacheChart(self.records, id="usage-chart")
            yield DataTable(id="usage-requests", cursor_type="row", zebra_stripes=True)
            yield Static(id="usage-detail")
        yield CoalescingFooter()

    @property
    def table(self) -> DataTable:
        return self.query_one("#usage-requests", DataTable)

    def on_mount(self) -> None:
        self.table.add_columns(*COLUMNS)
        self._fill()
        self.table.focus()

    def _fill(self) -> None:
        table = self.table
        table.clear()
        for record in self.records:
            table.add_row(*_row(record), key=str(record.number))
        broken = [r for r in self.records if r.prefix_break is not None and not r.prefix_break.expected]
        focus = broken[0] if broken else (self.records[-1] if self.records else None)
        if focus is not None:
            table.move_cursor(row=focus.number - 1)
            self._show_detail(focus)

    def _show_detail(self, record: RequestRecord) -> None:
        self.query_one("#usage-detail", Static).update(break_detail(record))

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.records):
            self._show_detail(self.records[event.cursor_row])

    def action_reload(self) -> None:
        """Read the meter again (a turn may have run since the screen opened)."""
        self.records = list(self.read_records())
        self.query_one("#usage-summary", Static).update(summary(self.records, self.priced_as, self.context))
        chart = self.query_one(CacheChart)
        chart.set_records(self.records)
        self._fill()

    def action_close(self) -> None:
        self.dismiss(None)
