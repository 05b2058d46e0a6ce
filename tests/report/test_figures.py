"""The report's figures drawn from a sweep's summary: what a reader must be able to tell apart."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from hwlib.report.figures import plot_tradeoff


def test_releases_whose_cells_coincide_stay_told_apart_in_the_tradeoff_plot():
    """Nine releases losing nothing at about the same unavailability fall on one another: each
    is a hollow marker of its own shape and colour, and the legend stands beside the axes, not
    over the points."""
    releases = ["0.10.2", "0.11.0", "2.0.1", "2.1", "2.8.1", "3.6-zk", "3.7-kraft", "3.9-kraft", "4.1"]
    summary = pd.DataFrame({"protocol": releases, "unavailability": [0.14] * 9, "lost_rate": [0.0] * 9})
    fig = plot_tradeoff(summary)
    try:
        ax = fig.axes[0]
        shapes = [tuple(map(tuple, c.get_paths()[0].vertices.round(3))) for c in ax.collections]
        edges = [tuple(c.get_edgecolors()[0]) for c in ax.collections]
        assert len(ax.collections) == 9 and len(set(shapes)) == 9 and len(set(edges)) == 9
        assert all(len(c.get_facecolors()) == 0 or c.get_facecolors()[0][3] == 0 for c in ax.collections)   # hollow
        legend = ax.get_legend()
        fig.canvas.draw()
        assert legend.get_window_extent().x0 >= ax.get_window_extent().x1          # beside the axes
        assert [t.get_text() for t in legend.get_texts()][0].startswith("0.10.2")
    finally:
        plt.close(fig)          # a pyplot figure left open is seen by later tests (test_cli's)
