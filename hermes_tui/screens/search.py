"""Interactive search: results as you type, grouped by conversation, the match in context.

Every keystroke supersedes the query before it: the one in flight is interrupted (the screen's
own read connections, ``SessionDB.reader``) and any result it still delivers is dropped by its
generation, so what is shown is never older than the last query that finished. Each query first
walks the index newest first, which costs about a bare ``MATCH … LIMIT`` whatever the word, and
is drawn at once; when that page is full (a common word) the matches are ranked by relevance
once typing pauses, on a second connection, and the ranked page replaces it. The debounce
follows what the last queries cost in the store, between ``DEBOUNCE_MIN_S`` and
``DEBOUNCE_MAX_S``. Result rows are built only when drawn, those in view by the query's worker,
and a new list is painted in two short frames (``ResultList``); the preview follows new results
(or clears) only once typing pauses, and nothing changes the screen's layout while typing, so a
key typed at any moment is echoed within one short frame. Session titles are searched beside
the messages. The screen dismisses with a ``SearchTarget`` (the session and message to open) or
``None``; "summarize" runs the session-search summary off the UI thread and shows it in place of
the preview.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from typing import Callable

from rich.cells import cell_len
from rich.console import Group
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import ContentSwitcher, Input, OptionList, Static
from textual.widgets.input import Selection
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from engine import clock
from engine.errors import HermesError
from engine.session_search import SessionSearchResult, format_text, session_search
from engine.store import SearchHit, SessionDB
from engine.store.models import Session
from hermes_tui.formatting import group_by_lineage, one_line, relative_time, snippet_text, truncate
from hermes_tui.screens.hit_view import HitView, matched_words
from hermes_tui.screens.read_mark import read_mark
from hermes_tui.screens.styled_once import StyledOnceScreen
from hermes_tui.screens.typed_text import TakesTypedText
from hermes_tui.ui_thread import deliver
from hermes_tui.untrusted import visible_line
from hermes_tui.widgets.footer import CoalescingFooter
from hermes_tui.widgets.literal import literal_text
from hermes_tui.widgets.result_list import LazyOption, ResultList, RowLook, draw_ahead
from hermes_tui.widgets.query_input import QueryInput
from hermes_tui.widgets.transcript_preview import TranscriptPreview, match_pattern

DEBOUNCE_MIN_S, DEBOUNCE_MAX_S = 0.01, 0.15
RANK_PAUSE_S = 0.3  # typing paused this long: rank a full page of newest matches
RANK_BUDGET_S = 0.03  # a page that is not full is ranked at once when that fits in this budget
PREVIEW_PAUSE_S = 0.2  # new results: the first hit's preview waits until typing pauses this long
HIT_LIMIT = 100
TITLE_LIMIT = 5
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


def fit_match(snippet: Text, width: int) -> Text:
    """``snippet`` cut to ``width`` cells so that its first match stays in view: when the match
    would fall past the edge, the text before it is dropped (``…``), keeping some lead-in."""
    if cell_len(snippet.plain) <= width or not snippet.spans:
        return snippet
    first = min(snippet.spans, key=lambda span: span.start)
    if cell_len(snippet.plain[: first.end]) <= width:
        return snippet
    lead_in, cut = width // 4, first.start
    while cut > 0 and cell_len(snippet.plain[cut - 1 : first.start]) <= lead_in:
        cut -= 1
    return Text("…") + snippet[cut:]


def fitting(parts: list[str], width: int) -> str:
    """``parts`` joined with " · ", as many as fit in ``width`` cells (the first always): a narrow
    screen drops whole parts from the end instead of cutting one."""
    line = parts[0]
    for part in parts[1:]:
        longer = f"{line} · {part}"
        if cell_len(longer) > width:
            break
        line = longer
    return line


def session_heading(hit: SearchHit, matches: int) -> Text:
    """The session that holds the hits below: its own title and id."""
    return Text.assemble((visible_line(hit.title or "(untitled)"), "bold"), (f"  {visible_line(hit.session_id)}", "dim"),
                         (f"  {plural(matches, 'match', 'matches')}", "dim"), no_wrap=True, overflow="ellipsis")


def hit_line(hit: SearchHit, now: float, match_style: str, width: int) -> Text:
    """One matching message on one line: role, age, then the snippet with its match in view."""
    lead = Text(f"  {visible_line(hit.role):<9} {relative_time(hit.known_timestamp, now):<14} ", style="dim")
    # one cell kept for the "…" the row's own cut puts in its last cell when the snippet goes on
    snippet = fit_match(snippet_text(one_line(hit.snippet), match_style), max(8, width - cell_len(lead.plain) - 1))
    line = Text.assemble(lead, snippet)
    line.truncate(width, overflow="ellipsis")
    return line


def result_options(groups: list[list[SearchHit]], now: float, match_style: str, width: int) -> list[Option]:
    """Per conversation, a disabled heading for each session that holds hits (its own title and
    id), then one option per matching message (each row built when it is first drawn)."""
    options: list[Option] = []
    for group in groups:
        by_session: dict[str, list[SearchHit]] = {}
        for hit in group:
            by_session.setdefault(hit.session_id, []).append(hit)
        for session_id, hits in by_session.items():
            options.append(LazyOption(partial(session_heading, hits[0], len(hits)), id=f"group:{session_id}",
                                      disabled=True))
            options.extend(LazyOption(partial(hit_line, hit, now, match_style, width),
                                      id=f"hit:{hit.session_id}:{hit.message_id}") for hit in hits)
    return options


def title_row(session: Session, now: float) -> Text:
    return Text.assemble(("  " + visible_line(session.title or ""), "bold"),
                         (f"  {visible_line(session.id)}  {relative_time(session.last_active, now)}", "dim"),
                         no_wrap=True, overflow="ellipsis")


def title_options(sessions: list[Session], now: float) -> list[Option]:
    """Sessions whose title matched, above the message hits."""
    if not sessions:
        return []
    heading = LazyOption(partial(Text, f"Titles · {plural(len(sessions), 'session')}", style="bold"), id="titles",
                         disabled=True)
    return [heading, *(LazyOption(partial(title_row, s, now), id=f"session:{s.id}") for s in sessions)]


@dataclass(frozen=True)
class ListLook:
    """How results are listed, read on the UI thread when a query starts, so that its worker can
    build the rows and draw those in view: results listed with another look are built again."""

    rows: RowLook | None
    match_style: str
    snippet_width: int
    newest_first: bool


def listed_options(hits: list[SearchHit], titles: list[Session], look: ListLook, now: float) -> list[Option]:
    """The titles that matched, then the hits grouped by conversation."""
    groups = order_groups(hits, look.newest_first)
    return title_options(titles, now) + result_options(groups, now, look.match_style, look.snippet_width)


def recent_row(session: Session, now: float) -> Group:
    return Group(
        Text.assemble((visible_line(session.title or "(untitled)"), "bold"),
                      (f"  {visible_line(session.source)}  {relative_time(session.last_active, now)}", "dim"),
                      no_wrap=True),
        Text("  " + truncate(visible_line(session.preview or ""), 100), style="dim", no_wrap=True, overflow="ellipsis"),
    )


def recent_options(sessions: list[Session], now: float) -> list[Option]:
    """The empty-query view: recent sessions, two lines each."""
    return [LazyOption(partial(recent_row, s, now), id=f"session:{s.id}", lines=2) for s in sessions]


class SearchScreen(TakesTypedText, StyledOnceScreen["SearchTarget | None"]):
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
        self.titles: list[Session] = []
        self.shown_query: str | None = None  # the query the listed results belong to
        self.ranked = True  # whether the listed hits are in their final order
        self._listed_at: object = None  # read_mark() as the listed results were read
        self._timer: Timer | None = None
        self._rank_timer: Timer | None = None
        self._preview_timer: Timer | None = None
        self._auto_highlight: Option | None = None  # highlighted by a new list, not by the user
        self._snippets: dict[str, str] = {}
        self._generation = 0  # bumped on every keystroke: results of an earlier one are dropped
        self._cost = DEBOUNCE_MIN_S  # what the store took for the last queries (seconds, smoothed)
        self._reader = db.reader()  # the quick walk
        self._ranker = db.reader()  # ranking, abandoned when a key arrives
        self._open_when_shown = False  # enter came before the results of the query typed

    def compose(self) -> ComposeResult:
        yield Static("Search", id="search-title")
        yield QueryInput(self.initial_query, placeholder='words, "a phrase", a OR b, NOT c, prefix*, 中文', id="query")
        with Horizontal(id="search-body"):
            with Vertical(id="results-column"):  # the status beside the rows it describes: a frame that
                yield Static("", id="search-status")  # repaints both then leaves the preview alone
                yield ResultList(id="results")
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
        self._query(self.initial_query, self._generation)

    def reopen(self) -> None:
        """About to be shown again (the app keeps one search screen): as it was left when its
        results are final (ranked, or the recent sessions) and nothing was written since they were
        read; else they are read again, the old preview dropped first."""
        mark = read_mark(self.db)
        final = self.ranked or self.newest_first
        if mark is not None and mark == self._listed_at and self.shown_query == self.query_text and final:
            self._follow_later(self._preview_if_missing)  # a key typed at once does not wait for it
            return
        self._stop_queries()
        self.query_one(TranscriptPreview).show(None)
        self._query(self.query_text, self._generation)

    def on_unmount(self) -> None:
        self._stop_queries()
        self._reader.close()
        self._ranker.close()

    # ----- live results --------------------------------------------------------------------

    @property
    def debounce_s(self) -> float:
        return min(DEBOUNCE_MAX_S, max(DEBOUNCE_MIN_S, self._cost))

    def _stop_queries(self) -> None:
        self._pause_timers()
        self._generation += 1
        self._reader.interrupt()
        self._ranker.interrupt()

    @on(Input.Changed, "#query")
    def _typed(self, event: Input.Changed) -> None:
        self._open_when_shown = False
        self._stop_queries()
        self.query_one(TranscriptPreview).abandon()
        generation = self._generation
        self._timer = self.set_timer(self.debounce_s, lambda: self._query(event.value, generation))

    @on(Input.Submitted, "#query")
    def _submitted(self) -> None:
        """``enter`` in the query opens the highlighted result, once the results are those of
        the query typed: ``down`` and ``enter`` typed in one burst often both reach the query box
        (a binding runs only after the key has passed the focused widget), so ``enter`` here
        must mean what it would mean in the results (when ``down`` is handled first, ``enter``
        reaches the results instead: ``_open`` waits the same way)."""
        self.action_focus_results()
        if self.shown_query == self.query_text:
            self._open_highlighted()
        else:
            self._open_when_shown = True

    def _open_highlighted(self) -> None:
        self._open_when_shown = False
        index = self.results.highlighted
        if index is not None:
            self._open_option(self.results.get_option_at_index(index).id)

    def on_key(self, event: events.Key) -> None:
        """``enter`` in results that list nothing yet (nothing to select) waits for the typed
        query's, as ``_open``."""
        if event.key == "enter" and self.focused is self.results and self.results.highlighted is None:
            if self.shown_query != self.query_text:
                self._open_when_shown = True

    def type_into_box(self, event: events.Key) -> bool:
        """Printable text typed while the results have focus refines the query (fzf-like), unless
        the key is bound there (``s`` summarizes): no typed character is ever lost."""
        if event.key in self.app.active_bindings:
            return False
        box = self.query_one("#query", Input)
        self.set_focus(box)
        box.call_later(self._append_to_query, box, event.character or "")  # after the focus, which selects all
        return True

    @staticmethod
    def _append_to_query(box: Input, text: str) -> None:
        box.selection = Selection.cursor(len(box.value))
        box.insert_text_at_cursor(text)

    def _current(self, generation: int) -> Callable[[], bool]:
        worker = get_current_worker()
        return lambda: worker.is_cancelled or generation != self._generation

    def _look(self) -> ListLook:
        style = f"bold reverse {self.app.theme_variables.get('accent', '')}".strip()
        results = self.query_one("#results", ResultList)
        return ListLook(results.row_look(), style, max(20, results.scrollable_content_region.width - 2),
                        self.newest_first)

    def _query(self, query: str, generation: int) -> None:
        self._run(query, generation, self._look())

    @work(thread=True, exclusive=True, group="search")
    def _run(self, query: str, generation: int, look: ListLook) -> None:
        stale = self._current(generation)
        started = time.monotonic()
        mark = read_mark(self.db)  # before the read: a write during it makes the next open read again
        try:
            if not query.strip():
                recent = recent_options(self.db.list_sessions(limit=RECENT_LIMIT), clock.now())
                deliver(self, self._show_recent, generation, draw_ahead(recent, look.rows, stale), mark)
                return
            hits = self._reader.search(query, limit=HIT_LIMIT, newest_first=True, cancelled=stale)
            titles = self._reader.titles(query, limit=TITLE_LIMIT, cancelled=stale)
            if hits is None or titles is None:
                return
            ranked = not self._reader.ranks(query)
            if not ranked and not self.newest_first and len(hits) < HIT_LIMIT:  # every match is here: rank them if that is quick
                best = self._reader.search(query, limit=HIT_LIMIT, deadline=time.monotonic() + RANK_BUDGET_S,
                                           cancelled=stale)
                hits, ranked = (hits, False) if best is None else (best, True)
        except HermesError as exc:
            deliver(self, self._failed, generation, str(exc))
            return
        self._learn_cost(time.monotonic() - started)
        options = draw_ahead(listed_options(hits, titles, look, clock.now()), look.rows, stale)
        deliver(self, self._show, query, generation, hits, titles, ranked, mark, options, look)

    @work(thread=True, exclusive=True, group="rank")
    def _rank(self, query: str, generation: int, titles: list[Session], look: ListLook) -> None:
        mark = read_mark(self.db)
        stale = self._current(generation)
        try:
            hits = self._ranker.search(query, limit=HIT_LIMIT, cancelled=stale)
        except HermesError as exc:
            deliver(self, self._failed, generation, str(exc))
            return
        if hits is not None:
            options = draw_ahead(listed_options(hits, titles, look, clock.now()), look.rows, stale)
            deliver(self, self._show, query, generation, hits, titles, True, mark, options, look)

    def _failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self._set_status(message)

    def _learn_cost(self, seconds: float) -> None:
        """Only the store's time counts: drawing cannot be abandoned, a query can (the next key
        interrupts it), so a cheap query starts almost at once however slow a frame is."""
        self._cost = 0.5 * self._cost + 0.5 * seconds

    def _show_recent(self, generation: int, options: list[Option], mark: object) -> None:
        if generation != self._generation:
            return
        self.hits, self.titles, self.ranked, self._listed_at = [], [], True, mark
        self._list(options, "", "Recent sessions — type to search")

    def _show(self, query: str, generation: int, hits: list[SearchHit], titles: list[Session], ranked: bool,
              mark: object, options: list[Option], look: ListLook) -> None:
        """A query's results, listed as its worker built them unless the list's look changed since
        (the order switched, a theme, a resize)."""
        if generation != self._generation:
            return  # a key arrived since this query started
        self.hits, self.titles, self.ranked, self._listed_at = hits, titles, ranked, mark
        self._snippets = {f"hit:{h.session_id}:{h.message_id}": h.snippet for h in hits}
        self._list(options if look == self._look() else self._options(), query, self._status(query))
        if self._open_when_shown and query == self.query_text:
            self._open_highlighted()
            return
        if not ranked and not self.newest_first:
            self._rank_timer = self.set_timer(RANK_PAUSE_S, lambda: self._rank(query, generation, titles, self._look()))

    def _options(self) -> list[Option]:
        return listed_options(self.hits, self.titles, self._look(), clock.now())

    def _status(self, query: str) -> str:
        if not self.hits and not self.titles:
            return f"No matches for {query!r}."
        parts = [f"{plural(len(self.hits), 'match', 'matches')} in "
                 f"{plural(len(group_by_lineage(self.hits)), 'conversation')}" if self.hits else "no message matches"]
        if self.titles:
            parts.append(f"{plural(len(self.titles), 'title')}")
        parts.append("enter opens")  # the footer cannot say it: the query box and the list own enter
        if self.newest_first:
            parts.append("newest first")
        else:
            parts.append("best match first" if self.ranked else "newest first, ranked when you pause")
        return fitting(parts, self.query_one("#search-status").content_region.width)  # as wide as the results

    def _list(self, options: list[Option], query: str, status: str) -> None:
        enabled = [i for i, o in enumerate(options) if not o.disabled]
        first = next((i for i in enabled if (options[i].id or "").startswith("hit:")), enabled[0] if enabled else None)
        self._auto_highlight = options[first] if first is not None else None
        self.results.replace(options, first)
        self.shown_query = query
        self._set_status(status)
        if first is None:  # like a new first hit's preview, the clearing waits for a pause in typing
            self._follow_later(lambda: self.query_one(TranscriptPreview).show(None))

    def _set_status(self, text: str) -> None:
        # may quote the query; one line of a fixed height: a new text needs no layout of the screen
        self.query_one("#search-status", Static).update(literal_text(text), layout=False)

    @on(OptionList.OptionHighlighted, "#results")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """The preview follows the highlight; for the first hit of new results it waits until
        typing pauses, so that drawing a transcript per keystroke never delays the next key."""
        if self._preview_timer is not None:
            self._preview_timer.stop()
        target = self._target(event.option.id)
        if target is None:
            return
        if event.option is self._auto_highlight:
            self._auto_highlight = None
            self._follow_later(lambda: self._preview(target))
        else:
            self._preview(target)

    def _follow_later(self, change: Callable[[], None]) -> None:
        """The preview follows new results once typing pauses (the next key stops the timer):
        mounting or clearing a transcript between two keystrokes would delay the second."""
        if self._preview_timer is not None:
            self._preview_timer.stop()
        self._preview_timer = self.set_timer(PREVIEW_PAUSE_S, change)

    @on(events.ScreenSuspend)
    def _pause_timers(self) -> None:
        """Closed or covered: what waits on a timer (the query after the debounce, ranking, the first
        hit's preview) must not run into a screen not shown, or being taken down as the app quits.
        ``reopen`` runs the query again."""
        for timer in (self._timer, self._rank_timer, self._preview_timer):
            if timer is not None:
                timer.stop()

    @on(events.ScreenResume)
    def _catch_up(self) -> None:
        """Shown again after a screen covered it (the palette, a hit): a query typed just before
        it came up was left waiting on its stopped timer."""
        if self.shown_query is not None and self.shown_query != self.query_text:
            self._query(self.query_text, self._generation)

    def _preview_if_missing(self) -> None:
        """The highlighted result's preview, when the screen closed before it was read."""
        index = self.results.highlighted
        target = self._target(self.results.get_option_at_index(index).id) if index is not None else None
        shown = self.query_one(TranscriptPreview)
        if target is not None and self.query_one(ContentSwitcher).current == "preview" and not (
                shown.session_id == target.session_id and shown.loaded and not shown.held):
            self._preview(target)

    def _preview(self, target: SearchTarget) -> None:
        self.query_one(ContentSwitcher).current = "preview"
        self.query_one(TranscriptPreview).show(target.session_id, focus_message_id=target.message_id,
                                               title=self._title_of(target.session_id),
                                               marks=match_pattern(matched_words(target.snippet)))

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
        """``enter`` in the results opens the highlighted one, once they are those of the query
        typed: in a fast burst ``down`` can move the focus here before the query has run, and the
        ``enter`` after it means the first result of what was typed, not the recent session (or
        older result) that happens to be highlighted."""
        if self.shown_query != self.query_text:
            self._open_when_shown = True
            return
        self._open_option(event.option.id)

    def _open_option(self, option_id: str | None) -> None:
        """A hit opens in its session (``HitView``), from where a key continues; a title resumes at once."""
        target = self._target(option_id)
        if target is None:
            return
        if target.message_id is None:
            self.dismiss(target)
            return
        view = HitView(self.db, target.session_id, target.message_id, title=self._title_of(target.session_id),
                       snippet=target.snippet)
        self.app.push_screen(view, lambda go: self._continue(target, go))

    def _continue(self, target: SearchTarget, go: bool | None) -> None:
        if go:
            self.dismiss(target)  # not awaited: this runs in the screen's own message handler

    def _title_of(self, session_id: str) -> str:
        titles = [(h.session_id, h.title) for h in self.hits] + [(s.id, s.title) for s in self.titles]
        return next((title for sid, title in titles if sid == session_id and title), None) or session_id

    # ----- actions -------------------------------------------------------------------------

    def action_toggle_order(self) -> None:
        self.newest_first = not self.newest_first
        shown = self.shown_query
        if shown is not None and shown.strip():
            self._list(self._options(), shown, self._status(shown))
            if not self.newest_first and not self.ranked:
                self._rank(shown, self._generation, self.titles, self._look())

    def action_focus_results(self) -> None:
        self.results.focus()

    def action_focus_query(self) -> None:
        self.focus_query()

    def focus_query(self, query: str = "") -> None:
        """Back to the query box (search asked for again while open); a ``query`` replaces its text."""
        box = self.query_one("#query", Input)
        if query:
            box.value = query
        self.set_focus(box)  # at once: keys typed right after ctrl+f are already on their way

    def action_summarize(self) -> None:
        query = self.query_text.strip()
        if not query:
            self.notify("Type a query to summarize what matched.", severity="warning")
            return
        if self._preview_timer is not None:
            self._preview_timer.stop()  # the summaries take the preview's place until the highlight moves
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
