"""Interactive search: results as you type, grouped by conversation, the match in context.

Each keystroke restarts a short timer; when it fires the query runs in a thread worker with
``exclusive=True``, so a slow query for "dep" never overwrites the results for "deploy". The
screen dismisses with a ``SearchTarget`` (the session and message to open) or ``None``. The
"summarize" action runs the session-search summary off the UI thread and shows it in place of
the preview.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import ContentSwitcher, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from engine import clock
from engine.errors import HermesError
from engine.session_search import SessionSearchResult, format_text, session_search
from engine.store import SearchHit, SessionDB
from engine.store.models import Session
from hermes_tui.formatting import group_by_lineage, one_line, relative_time, snippet_text, truncate
from hermes_tui.ui_thread import deliver
from hermes_tui.untrusted import visible_line
from hermes_tui.widgets.footer import CoalescingFooter
from hermes_tui.widgets.literal import literal_text
from hermes_tui.widgets.transcript_preview import TranscriptPreview

DEBOUNCE_S = 0.15
HIT_LIMIT = 100
RECENT_LIMIT = 30
Summarizer = Callable[[str], SessionSearchResult]


@dataclass(frozen=True)
class SearchTarget:
    """What ``enter`` opens: a session, and the matched message in it when there is one."""

    session_id: str
    message_id: int | None = None
    snippet: str = ""


def order_groups(hits: list[SearchHit], newest_first: bool) -> list[list[SearchHit]]:
    """Hits grouped by conversation; best-ranked group first, or the group with the newest hit."""
    groups = list(group_by_lineage(hits).values())
    if newest_first:
        groups = [sorted(g, key=lambda h: h.timestamp, reverse=True) for g in groups]
        groups.sort(key=lambda g: g[0].timestamp, reverse=True)
    return groups


def plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else (words or word + 's')}"


def result_options(groups: list[list[SearchHit]], now: float, match_style: str, width: int) -> list[Option]:
    """One disabled heading per conversation, then one option per matching message (one line each)."""
    options: list[Option] = []
    for group in groups:
        head = group[0]
        heading = Text.assemble((visible_line(head.title or "(untitled)"), "bold"),
                                (f"  {visible_line(head.lineage_root)}", "dim"),
                                (f"  {plural(len(group), 'match', 'matches')}", "dim"), no_wrap=True)
        options.append(Option(heading, id=f"group:{head.lineage_root}", disabled=True))
        for hit in group:
            lead = Text(f"  {visible_line(hit.role):<9} {relative_time(hit.timestamp, now):<14} ", style="dim")
            line = Text.assemble(lead, snippet_text(one_line(hit.snippet), match_style))
            line.truncate(width, overflow="ellipsis")
            options.append(Option(line, id=f"hit:{hit.session_id}:{hit.message_id}"))
    return options


def recent_options(sessions: list[Session], now: float) -> list[Option]:
    """The empty-query view: recent sessions, one line each."""
    return [
        Option(Group(
            Text.assemble((visible_line(s.title or "(untitled)"), "bold"),
                          (f"  {visible_line(s.source)}  {relative_time(s.last_active, now)}", "dim"), no_wrap=True),
            Text("  " + truncate(visible_line(s.preview or ""), 100), style="dim", no_wrap=True, overflow="ellipsis"),
        ), id=f"session:{s.id}")
        for s in sessions
    ]


class SearchScreen(Screen["SearchTarget | None"]):
    """Type to search; arrows pick a result, ``enter`` opens it, ``s`` summarizes."""

    CSS_PATH = "search.tcss"
    BINDINGS = [
        Binding("escape", "close", "Back"),
        Binding("ctrl+o", "toggle_order", "Newest/best"),
        Binding("s,ctrl+s", "summarize", "Summarize"),  # plain s once the results have focus
        Binding("down", "focus_results", "Results", show=False),
        Binding("ctrl+f", "focus_query", "Query", show=False),
    ]

    def __init__(self, db: SessionDB, *, summarize: Summarizer | None = None, query: str = "") -> None:
        super().__init__()
        self.db = db
        self.summarize = summarize or (lambda q: session_search(db, q, provider=None, current_session_id=None))
        self.initial_query = query
        self.newest_first = False
        self.hits: list[SearchHit] = []
        self.shown_query: str | None = None  # the query the listed results belong to
        self._timer: Timer | None = None
        self._snippets: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield Static("Search", id="search-title")
        yield Input(self.initial_query, placeholder='words, "a phrase", a OR b, NOT c, prefix*, 中文', id="query")
        yield Static("", id="search-status")
        with Horizontal(id="search-body"):
            yield OptionList(id="results")
            with ContentSwitcher(initial="preview", id="side"):
                yield TranscriptPreview(self.db, id="preview")
                with VerticalScroll(id="summaries"):
                    yield Static("", id="summary-text")
        yield CoalescingFooter()

    @property
    def results(self) -> OptionList:
        return self.query_one("#results", OptionList)

    @property
    def query_text(self) -> str:
        return self.query_one("#query", Input).value

    def on_mount(self) -> None:
        self.query_one("#query", Input).focus()
        self._run(self.initial_query)

    # ----- live results --------------------------------------------------------------------

    @on(Input.Changed, "#query")
    def _typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_S, lambda: self._run(event.value))

    @on(Input.Submitted, "#query")
    def _submitted(self) -> None:
        self.action_focus_results()

    @work(thread=True, exclusive=True, group="search")
    def _run(self, query: str) -> None:
        worker = get_current_worker()
        try:
            if query.strip():
                found: list[SearchHit] | list[Session] = self.db.search(query, limit=HIT_LIMIT)
            else:
                found = self.db.list_sessions(limit=RECENT_LIMIT)
        except HermesError as exc:
            if not worker.is_cancelled:
                deliver(self, self._set_status, str(exc))
            return
        if not worker.is_cancelled:
            deliver(self, self._show, query, found)

    def _show(self, query: str, found: list) -> None:
        now = clock.now()
        if query.strip():
            self.hits = found
            self._snippets = {f"hit:{h.session_id}:{h.message_id}": h.snippet for h in found}
            style = f"bold reverse {self.app.theme_variables.get('accent', '')}".strip()
            width = max(20, self.results.scrollable_content_region.width - 2)
            options = result_options(order_groups(found, self.newest_first), now, style, width)
            sessions = len(group_by_lineage(found))
            order = "newest first" if self.newest_first else "best match first"
            status = (f"{plural(len(found), 'match', 'matches')} in {plural(sessions, 'conversation')} · {order}"
                      if found else f"No matches for {query!r}.")
        else:
            self.hits = []
            options = recent_options(found, now)
            status = "Recent sessions — type to search"
        self.results.set_options(options)
        self.shown_query = query
        self._set_status(status)
        first = next((i for i, o in enumerate(options) if not o.disabled), None)
        self.results.highlighted = first
        if first is None:
            self.query_one(TranscriptPreview).show(None)

    def _set_status(self, text: str) -> None:
        self.query_one("#search-status", Static).update(literal_text(text))  # may quote the query

    @on(OptionList.OptionHighlighted, "#results")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        target = self._target(event.option.id)
        if target is None:
            return
        self.query_one(ContentSwitcher).current = "preview"
        title = next((h.title for h in self.hits if h.session_id == target.session_id), None)
        self.query_one(TranscriptPreview).show(target.session_id, focus_message_id=target.message_id,
                                               title=title or target.session_id)

    def _target(self, option_id: str | None) -> SearchTarget | None:
        kind, _, rest = (option_id or "").partition(":")
        if kind == "session":
            return SearchTarget(rest)
        if kind == "hit":
            session_id, _, message_id = rest.rpartition(":")
            return SearchTarget(session_id, int(message_id), self._snippets.get(option_id or "", ""))
        return None

    @on(OptionList.OptionSelected, "#results")
    def _open(self, event: OptionList.OptionSelected) -> None:
        target = self._target(event.option.id)
        if target is not None:
            self.dismiss(target)

    # ----- actions -------------------------------------------------------------------------

    def action_toggle_order(self) -> None:
        self.newest_first = not self.newest_first
        if self.shown_query is not None and self.shown_query.strip():
            self._show(self.shown_query, self.hits)

    def action_focus_results(self) -> None:
        self.results.focus()

    def action_focus_query(self) -> None:
        self.focus_query()

    def focus_query(self, query: str = "") -> None:
        """Back to the query box (search asked for again while open); a ``query`` replaces its text."""
        box = self.query_one("#query", Input)
        if query:
            box.value = query
        box.focus()

    def action_summarize(self) -> None:
        query = self.query_text.strip()
        if not query:
            self.notify("Type a query to summarize what matched.", severity="warning")
            return
        self.query_one("#summary-text", Static).update(literal_text(f"Summarizing the sessions that match {query!r}…"))
        self.query_one(ContentSwitcher).current = "summaries"
        self._summarize(query)

    @work(thread=True, exclusive=True, group="summaries")
    def _summarize(self, query: str) -> None:
        worker = get_current_worker()
        try:
            text = format_text(self.summarize(query))
        except HermesError as exc:
            text = f"Summaries failed: {exc}"
        if not worker.is_cancelled:
            deliver(self, self._show_summary, text)

    def _show_summary(self, text: str) -> None:
        self.query_one("#summary-text", Static).update(literal_text(text))

    def action_close(self) -> None:
        self.dismiss(None)
