"""The style of the demos' figures: sized for a documentation page, legends off the data.

A figure is :data:`FIGURE_SIZE` at :data:`DPI` (about 1000 × 900 pixels), shown on a page
about 740 pixels wide, where the fonts of :data:`STYLE` are still 9 pixels or more; each
panel's legend sits under it (:func:`legend_below`), where it hides no data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Inches, and pixels per inch: a figure about 1000 × 900 pixels, shown on a page about 740
#: pixels wide, where its fonts are still about 9 pixels or more.
FIGURE_SIZE, DPI = (10.0, 9.0), 100
#: matplotlib settings of every demo figure (points).
STYLE = {"font.size": 11, "axes.titlesize": 11.5, "legend.fontsize": 9.5, "xtick.labelsize": 10,
         "ytick.labelsize": 10, "figure.titlesize": 13}


def new_figure(title: str):
    """A 2 × 2 :class:`~matplotlib.figure.Figure` of :data:`FIGURE_SIZE` in :data:`STYLE`,
    laid out so that legends below the panels fit (``constrained`` layout), and its axes."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=FIGURE_SIZE, layout="constrained")
        figure.suptitle(title)
        axes = figure.subplots(2, 2).flat
    return figure, axes


#: Characters of legend text a panel's width holds (at :data:`STYLE`'s legend font).
LEGEND_WIDTH = 66


def legend_below(axis: Axes, columns: int = 2) -> None:
    """The axis's legend under it, outside the data: ``columns`` columns, fewer when the
    labels are too long for the panel's width."""
    import matplotlib

    labels = axis.get_legend_handles_labels()[1]
    longest = max((len(label) for label in labels), default=1)
    columns = max(1, min(columns, LEGEND_WIDTH // (longest + 5)))
    with matplotlib.rc_context(STYLE):
        axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=columns, frameon=False)
