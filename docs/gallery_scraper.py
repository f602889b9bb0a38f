"""The gallery's image scraper: the scripts save their own PNG (no pyplot figure to capture).

Each ``gallery/plot_*.py`` draws on a ``matplotlib.figure.Figure`` and saves it with
``save_figure(fig, gallery_output(__file__))`` into the folder named by
``SUPERMESH_GALLERY_DIR``. After every code block sphinx-gallery runs, this scraper moves the
pictures that appeared there to the places sphinx-gallery expects and returns their reST.
"""

from __future__ import annotations

import builtins
import shutil
import tempfile
from pathlib import Path
from typing import Any

from sphinx_gallery.scrapers import figure_rst

GALLERY_IMAGES = Path(tempfile.mkdtemp(prefix="supermesh-gallery-"))
"""Where the scripts write their pictures during a docs build."""


def scrape_gallery_images(
    block: Any, block_vars: dict[str, Any], gallery_conf: dict[str, Any]
) -> str:
    """Move the PNGs a code block wrote into the gallery and return the reST that shows them."""
    found = sorted(GALLERY_IMAGES.glob("*.png"), key=lambda p: p.stat().st_mtime)
    paths = []
    for image, target in zip(found, block_vars["image_path_iterator"], strict=False):
        shutil.move(str(image), target)
        paths.append(target)
    return figure_rst(paths, gallery_conf["src_dir"])


def script_file(gallery_conf: dict[str, Any], fname: str, when: str = "before") -> None:
    """Give the script about to run its ``__file__`` (sphinx-gallery defines none).

    The scripts name their picture after themselves (``gallery_output(__file__)``); a name a
    module does not define is looked up in ``builtins``, so that is where it goes.
    """
    if when != "before":
        return
    dirs = gallery_conf["examples_dirs"]
    for folder in [dirs] if isinstance(dirs, str) else dirs:
        path = Path(gallery_conf["src_dir"], folder, fname)
        if path.is_file():
            builtins.__file__ = str(path)  # type: ignore[attr-defined]
