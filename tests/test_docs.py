"""The documentation's promises: runnable examples, gallery conventions, one API page per name.

The Sphinx build itself runs in CI (``.ci/run``: ``sphinx-build -W``); these checks are the parts
that can be tested without Sphinx.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

import supermesh

ROOT = Path(__file__).resolve().parents[1]
GALLERY = sorted((ROOT / "gallery").glob("plot_*.py"))

# public names whose docstrings live in verify/, which another issue owns: examples to add there
PENDING_EXAMPLES = {"check_file", "DeadlockReport"}


def test_every_name_of_the_package_map_has_a_runnable_example():
    missing = []
    for _, _, names in supermesh._GROUPS:
        for name, module in names.items():
            doc = inspect.getdoc(getattr(importlib.import_module(module), name)) or ""
            if ">>>" not in doc:
                missing.append(name)
    assert sorted(missing) == sorted(PENDING_EXAMPLES)


@pytest.mark.parametrize("script", GALLERY, ids=lambda p: p.stem)
def test_gallery_scripts_follow_sphinx_gallery(script):
    text = script.read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(text)) or ""
    title, underline, *_ = doc.split("\n")
    assert underline == "=" * len(title), "a reST title: the first line, underlined"
    assert re.search(r"^# %%\n# \S", text, re.M), "at least one text cell"
    assert "plt.show" not in text


def test_api_pages_document_every_public_name_once(tmp_path):
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        apipages = importlib.import_module("apipages")
    finally:
        sys.path.remove(str(ROOT / "docs"))
    apipages.write_api_pages(tmp_path)
    text = "\n".join(p.read_text() for p in sorted(tmp_path.glob("*.rst")))
    documented = re.findall(
        r"^\.\. (?:autofunction|autoclass|autodata|py:data):: (\S+)$", text, re.M
    )
    assert len(documented) == len(set(documented))
    for _, _, names in supermesh._GROUPS:
        for name in names:
            assert f"supermesh.{name}" in documented
    for room in apipages.ROOMS:
        module = importlib.import_module(room)
        for name in getattr(module, "__all__", ()):
            assert f"{room}.{name}" in documented or f"``{name}``: documented as" in text, (
                room,
                name,
            )
