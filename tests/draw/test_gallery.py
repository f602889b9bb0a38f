"""The gallery: every ``gallery/plot_*.py`` runs on its own and writes its small PNG.

Scripts run in this process (imports paid once) in quick mode (``SUPERMESH_GALLERY_QUICK=1``:
fewer data sizes and shorter CP-SAT limits), writing into a temporary folder; the CLI test runs
one script the way ``supermesh gallery`` does, in a subprocess.
"""

from __future__ import annotations

import ast
import json
import runpy
import sys
from pathlib import Path

import pytest
from PIL import Image

from supermesh.cli import main
from supermesh.draw.gallery import GALLERY_DIR_ENV, GALLERY_QUICK_ENV, find_gallery, gallery_scripts

GALLERY = Path(__file__).resolve().parents[2] / "gallery"
SCRIPTS = sorted(GALLERY.glob("plot_*.py"))
MAX_BYTES = 300_000


def test_the_gallery_covers_the_papers_figures():
    names = {s.stem for s in SCRIPTS}
    assert {
        "plot_supermesh_variants",  # figure 4
        "plot_allreduce_trees",  # figure 5
        "plot_root_sets",  # figure 8
        "plot_hexamesh_memory",
        "plot_allreduce_bandwidth",  # figure 9
        "plot_scalability",  # figure 11
        "plot_link_utilization",  # figure 2
        "plot_utilization_timeseries",  # figure 18
        "plot_pipeline_gantt",  # figure 7
        "plot_energy",  # figures 14 and 15
    } <= names
    assert find_gallery() == GALLERY
    assert gallery_scripts(GALLERY) == SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_script_has_a_title_and_a_committed_small_image(script):
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
    assert doc, f"{script.name} has no docstring"
    title, _, body = doc.partition("\n")
    assert title.strip()
    assert body.strip()
    image = script.with_suffix(".png")
    assert image.is_file(), f"{image.name} is not committed; run supermesh gallery"
    assert image.stat().st_size < MAX_BYTES


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_script_runs_into_a_temporary_folder(script, tmp_path, monkeypatch):
    monkeypatch.setenv(GALLERY_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(GALLERY_QUICK_ENV, "1")
    monkeypatch.setattr(sys, "argv", [str(script)])
    runpy.run_path(str(script), run_name="__main__")
    (image,) = tmp_path.iterdir()
    assert image.name == script.stem + ".png"
    assert image.stat().st_size < MAX_BYTES
    with Image.open(image) as im:
        assert im.format == "PNG"
        width, height = im.size
        assert 300 < width < 2000
        assert 200 < height < 1600


def test_cli_runs_one_script_and_lists_it(tmp_path, capsys):
    try:
        main(["gallery", "--only", "supermesh_variants", "-o", str(tmp_path), "--json"])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, _ = capsys.readouterr()
    assert code == 0
    (run,) = json.loads(out)
    assert run["ok"]
    assert run["script"] == "plot_supermesh_variants.py"
    assert run["title"].startswith("SuperMesh variants side by side")
    assert (tmp_path / "plot_supermesh_variants.png").is_file()


def test_cli_bad_input(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["gallery", "--only", "no_such_plot", "-o", str(tmp_path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "no gallery script matches 'no_such_plot'" in err
    assert "hint: names: plot_" in err
    with pytest.raises(SystemExit) as exc:
        main(["gallery", "--gallery", str(tmp_path)])
    assert exc.value.code == 2
    assert list(tmp_path.iterdir()) == []
