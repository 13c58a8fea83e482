"""An option list whose rows are built only when drawn, so replacing a hundred of them is cheap.

The search screen replaces its whole result list on every keystroke. Textual's ``OptionList``
renders every option's prompt up front to learn its height, which for ~100 result rows (each a
snippet cut to fit its match) took most of a keystroke's time. A ``LazyOption`` states its height
(result rows never wrap) and builds its prompt the first time it is drawn, so a new list costs
what the rows on screen cost, whatever its length.
"""

from __future__ import annotations

from typing import Callable

from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style
from textual.visual import VisualType
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class LazyOption(Option):
    """An option of ``lines`` rows whose prompt ``build`` makes when it is first needed."""

    def __init__(self, build: Callable[[], VisualType], *, id: str, disabled: bool = False, lines: int = 1) -> None:
        super().__init__("", id=id, disabled=disabled)
        self._build: Callable[[], VisualType] | None = build
        self.lines = lines

    @property
    def prompt(self) -> VisualType:
        if self._build is not None:
            self._prompt, self._build = self._build(), None
        return self._prompt


class ResultList(OptionList):
    """``OptionList`` that takes a ``LazyOption``'s height from the option instead of rendering it,
    and draws its (Rich) prompt straight to strips: Textual's general path (a ``Content`` made
    from the Rich text, then laid out) cost about 1 ms a row, a full list ~40 ms a frame."""

    def _get_option_render(self, option: Option, style: Style) -> list[Strip]:
        padding = self.get_component_styles("option-list--option").padding
        if not isinstance(option, LazyOption) or padding or option._divider:
            return super()._get_option_render(option, style)
        key = (option, style, padding)
        if (strips := self._option_render_cache.get(key)) is None:
            width = self.scrollable_content_region.width - self._get_left_gutter_width()
            console = self.app.console
            options = console.options.update(width=width, height=None, no_wrap=True, overflow="ellipsis")
            base = style.rich_style
            meta = {"option": self._option_to_index[option]}
            lines = console.render_lines(option.prompt, options, style=base, pad=True)
            strips = [Strip(line, width).apply_meta(meta) for line in lines[: option.lines]]
            self._option_render_cache[key] = strips
        return strips

    def _update_lines(self) -> None:
        """As ``OptionList._update_lines``, with the height of a lazy option read, not measured."""
        if not self.scrollable_content_region:
            return
        cache = self._line_cache
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
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
            self.virtual_size = size
            self._scroll_update(size)
