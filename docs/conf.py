"""Sphinx configuration of the supermesh documentation.

Build with ``python3 -m sphinx -W -b html docs docs/_build/html`` (the docs extra:
``pip install -e '.[docs]'``). The API pages are written at build time from the package map
(``supermesh._GROUPS``) and the rooms' ``__all__`` (:mod:`apipages`), so they cannot drift from
the code; the gallery runs ``gallery/plot_*.py`` (``SUPERMESH_GALLERY_QUICK=1`` for the quick
version CI builds).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from apipages import write_api_pages, write_schema_list  # noqa: E402
from gallery_scraper import GALLERY_IMAGES, scrape_gallery_images, script_file  # noqa: E402

import supermesh  # noqa: E402

os.environ.setdefault("MPLBACKEND", "Agg")
# the scripts write their picture here (not next to themselves); the scraper picks it up
os.environ["SUPERMESH_GALLERY_DIR"] = str(GALLERY_IMAGES)

project = "supermesh"
author = "supermesh developers"
copyright = "supermesh developers"
release = version = supermesh.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_click",
    "sphinx_gallery.gen_gallery",
]

root_doc = "index"
suppress_warnings = ["config.cache"]  # the gallery's scraper is a function: Sphinx cannot pickle it
exclude_patterns = ["_build", "_schemas.rst", "gallery/*.py", "gallery/*.ipynb"]
templates_path: list[str] = []
html_theme = "furo"
html_title = f"supermesh {release}"
html_static_path: list[str] = []

autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"
autodoc_class_signature = "separated"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "gallery"),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "image_scrapers": (scrape_gallery_images,),
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "show_signature": False,
    "min_reported_time": 1e9,
    "abort_on_example_error": True,
    "reset_modules": (script_file,),
    # SUPERMESH_DOCS_GALLERY=0 skips running the scripts (a quick look at the other pages)
    "plot_gallery": os.environ.get("SUPERMESH_DOCS_GALLERY", "1") != "0",
}


def setup(app):
    app.connect("builder-inited", lambda app: write_api_pages(HERE / "api"))
    app.connect("builder-inited", lambda app: write_schema_list(HERE))
    return {"parallel_read_safe": True}
