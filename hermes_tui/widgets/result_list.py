"""An option list whose rows are built only when drawn, or drawn ahead off the UI thread.

The search screen replaces its whole result list on every keystroke. Textual's ``OptionList``
renders every option's prompt up front to learn its height, which for ~100 result rows (each a
snippet cut to fit its match) took most of a keystroke's time. A ``LazyOption`` states its height
(result rows never wrap) and builds its prompt the first time it is drawn, so a new list costs
what the rows on screen cost, whatever its length.

Even those rows cost a frame 15–35 ms (building a snippet row and rendering it through Rich,
~0.5 ms a row), during which a key's echo waits. So the query's worker draws the rows that will
fill the view (``draw_ahead``) with the look the list had when the query started (``RowLook``);
the frame then only composes them, and draws itself what changed since (the highlighted row, a
new theme or width).

Composing a full view of rows is still Textual's work per line (styles, chops): ~10 ms at 160×50
on a quiet 2-core machine, and more whenever the machine is busy. A new list (``replace``) is
therefore painted in two frames: its first ``FIRST_SLICE_LINES`` rows, then the rest of the view
(~17 ms later); a key typed meanwhile is echoed between the two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from rich.console import Console
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.style import Style
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option


@dataclass(frozen=True)
class RowLook:
    """What a row's strips depend on besides its text, read on the UI thread when a query starts."""

    console: Console
    wide: int  # the rows' width in cells without a vertical scrollbar
    narrow: int  # and with one
    height: int  # rows in view: what is drawn ahead
    normal: Style
    disabled: Style

    def width(self, lines: int) -> int:
        """The rows' width in a list of ``lines`` lines (more than the view shows a scrollbar)."""
        return self.narrow if lines > self.height else self.wide


@dataclass(frozen=True)
class DrawnRow:
    """An option's strips, and the width and style they were drawn with."""

    width: int
    style: Style
    strips: list[Strip]


def draw_prompt(console: Console, prompt: VisualType, width: int, style: Style, index: int, lines: int) -> list[Strip]:
    """A (Rich) prompt straight to ``lines`` strips of ``width``: Textual's general path (a
    ``Content`` made from the Rich text, then laid out) cost about 1 ms a row."""
    options = console.options.update(width=width, height=None, no_wrap=True, overflow="ellipsis")
    rendered = console.render_lines(prompt, options, style=style.rich_style, pad=True)
    return [Strip(line, width).apply_meta({"option": index}) for line in rendered[:lines]]


class LazyOption(Option):
    """An option of ``lines`` rows whose prompt ``build`` makes when it is first needed."""

    def __init__(self, build: Callable[[], VisualType], *, id: str, disabled: bool = False, lines: int = 1) -> None:
        super().__init__("", id=id, disabled=disabled)
        self._build: Callable[[], VisualType] | None = build
        self.lines = lines
        self.drawn: DrawnRow | None = None  # drawn ahead by ``draw_ahead``

    @property
    def prompt(self) -> VisualType:
        if self._build is not None:
            self._prompt, self._build = self._build(), None
        return self._prompt


def draw_ahead(options: list[Option], look: RowLook | None, stale: Callable[[], bool]) -> list[Option]:
    """From any thread, before ``options`` are listed: draw the lazy options that fill the view,
    as they will look unhighlighted (``stale`` stops it: a newer query came). ``options``."""
    if look is None:
        return options
    width = look.width(sum(option_lines(o) for o in options))
    line = 0
    for index, option in enumerate(options):
        if line >= look.height or stale():
            break
        if isinstance(option, LazyOption):
            style = look.disabled if option.disabled else look.normal
            option.drawn = DrawnRow(width, style, draw_prompt(look.console, option.prompt, width, style, index,
                                                              option.lines))
        line += option_lines(option)
    return options


def option_lines(option: Option) -> int:
    """The lines a lazy option takes; another counts as one (only a heading is not lazy)."""
    return option.lines if isinstance(option, LazyOption) else 1


FIRST_SLICE_LINES = 16  # rows of a new list painted in its first frame; the rest in the next


class ResultList(OptionList):
    """``OptionList`` that takes a ``LazyOption``'s height from the option instead of rendering it,
    draws its prompt straight to strips, or uses the strips drawn ahead for it, and paints a new
    list in two frames."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._replacing = False  # inside ``replace``: the list's own repaints are left to the slices
        self._unpainted = 0  # the first row of the view not yet painted with the current list
        self._replaced = 0  # counts ``replace`` calls: a slice of an older list paints no further

    @property
    def painted(self) -> bool:
        """Whether every row in view shows the current list (no slice is still to come)."""
        return self._unpainted >= self.size.height

    def replace(self, options: list[Option], highlighted: int | None) -> None:
        """The list replaced by ``options`` with ``highlighted`` highlighted, painted in two slices
        from the top: the repaints Textual asks for on the way are left to them."""
        self._replacing = True
        try:
            self._unpainted = 0
            self.set_options(options)
            self._update_lines()  # the new length's scrollbar now, not as a whole repaint while drawn
            self.highlighted = highlighted
        finally:
            self._replacing = False
        self._replaced += 1
        self._paint_slice(self._replaced)

    def _paint_slice(self, replaced: int) -> None:
        """Paint the next slice of rows of the list of ``replace`` number ``replaced``: the first
        ``FIRST_SLICE_LINES``, or all the rows below them."""
        top, height = self._unpainted, self.size.height
        if replaced != self._replaced or top >= height:
            return  # a newer list is being painted, or this one is in full
        lines = FIRST_SLICE_LINES if top == 0 else height - top
        self._unpainted = top + lines
        super().refresh(Region(0, top, self.size.width, lines))
        if self._unpainted < height:
            self.call_after_refresh(self._paint_slice, replaced)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> "ResultList":
        if self._replacing and repaint and not layout and not recompose:
            return self  # ``replace`` paints the new list itself, in two slices
        if repaint and not regions:
            self._unpainted = self.size.height  # the whole list is painted in the next frame
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def row_look(self) -> RowLook | None:
        """The look rows are drawn with now (``None`` before the list is laid out, and for options
        with padding, which are Textual's to draw)."""
        if not self.scrollable_content_region or self.get_component_styles("option-list--option").padding:
            return None
        width, bar = self._row_width(), self.styles.scrollbar_size_vertical
        if self.styles.overflow_y == "auto":
            wide = width + (bar if self.show_vertical_scrollbar else 0)
            narrow = wide - bar
        else:
            wide = narrow = width
        return RowLook(self.app.console, wide, narrow, self.scrollable_content_region.height,
                       self.get_visual_style("option-list--option"),
                       self.get_visual_style("option-list--option", "option-list--option-disabled"))

    def _row_width(self) -> int:
        return self.scrollable_content_region.width - self._get_left_gutter_width()

    def _get_option_render(self, option: Option, style: Style) -> list[Strip]:
        padding = self.get_component_styles("option-list--option").padding
        if not isinstance(option, LazyOption) or padding or option._divider:
            return super()._get_option_render(option, style)
        key = (option, style, padding)
        if (strips := self._option_render_cache.get(key)) is None:
            width, drawn = self._row_width(), option.drawn
            if drawn is not None and drawn.width == width and drawn.style == style:
                strips = drawn.strips
            else:
                strips = draw_prompt(self.app.console, option.prompt, width, style,
                                     self._option_to_index[option], option.lines)
            self._option_render_cache[key] = strips
        return strips

    def _update_lines(self) -> None:
        """As ``OptionList._update_lines``, with the height of a lazy option read, not measured.

        Textual calls it for every line drawn (through ``_lines``); once every option is in the
        line cache it returns at once instead of reading the list's region (a third of the
        list's own share of a frame). A new list or a resize clears the cache."""
        cache = self._line_cache
        last = cache.lines[-1][0] if cache.lines else -1
        if last == len(self.options) - 1 and self.virtual_size.height == len(cache.lines):
            return
        if not self.scrollable_content_region:
            return
        width = self._row_width()
        start = cache.lines[-1][0] + 1 if cache.lines else 0
        if start < len(self.options):
            padding = self.get_component_styles("option-list--option").padding
            for index, option in enumerate(self.options[start:], start):
                cache.index_to_line[index] = len(cache.lines)
                if isinstance(option, LazyOption):
                    count = option.lines + option._divider
                else:
                    count = self._get_visual(option).get_height(self.styles, width - padding.width) + option._divider
                cache.heights[index] = count
                cache.lines.extend((index, line) for line in range(count))
        last_divider = bool(self.options) and self.options[-1]._divider
        size = Size(width, len(cache.lines) - (1 if last_divider else 0))
        if size != self.virtual_size:
            # Not the layout reactive: the list's own size is fixed by the screen, so a new length
            # moves only its scrollbar; a layout of the whole screen per keystroke took 20–40 ms.
            self.set_reactive(Widget.virtual_size, size)
            self._scroll_update(size)
            self.refresh()
