"""The gallery stays true: every committed image carries the numbers its script drew
(``supermesh-facts`` in the PNG), the README's captions quote those numbers, and running a
script again gives the same numbers (else the committed image is stale: run `supermesh
gallery` and commit the images)."""

from __future__ import annotations

import json
import re
import runpy
import sys
from pathlib import Path

import pytest
from PIL import Image

from supermesh.draw.files import FACTS_KEY
from supermesh.draw.gallery import GALLERY_DIR_ENV, GALLERY_QUICK_ENV

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "gallery"
SCRIPTS = sorted(GALLERY.glob("plot_*.py"))


def facts_of(image: Path) -> dict:
    with Image.open(image) as im:
        text = getattr(im, "text", {}).get(FACTS_KEY)
    assert text, f"{image.name} carries no {FACTS_KEY}: it was not drawn by its script"
    return json.loads(text)


def captions() -> dict[str, str]:
    """Image -> the caption line under it, in the README and the guide pages (docs/guide)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
    found = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        found += re.findall(r"!\[[^\]]*\]\((?:\.\./)*gallery/([\w.]+\.png)\)\n\*([^*]+)\*", text)
    return {name: " ".join(caption.split()) for name, caption in found}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_committed_image_carries_its_numbers(script):
    assert facts_of(script.with_suffix(".png"))


@pytest.mark.parametrize(("image", "caption"), sorted(captions().items()))
def test_readme_captions_quote_the_images_numbers(image, caption):
    facts = json.dumps(facts_of(GALLERY / image))
    quoted = re.findall(r"\d+(?:\.\d+)?(?:%|x)(?!\d)", caption)  # 86%, 1.34x; not 4x4
    for number in quoted:
        assert number in facts, f"the caption of {image} says {number}; the image: {facts}"


def test_the_docs_show_gallery_images_with_captions():
    assert len(captions()) >= 4


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_script_draws_what_its_committed_image_shows(script, tmp_path, monkeypatch):
    committed = facts_of(script.with_suffix(".png"))
    monkeypatch.setenv(GALLERY_DIR_ENV, str(tmp_path))
    # the committed images are the full versions, but for one whose full run takes many
    # minutes (it says "mode": "quick" in its facts, and the README's caption says so)
    monkeypatch.setenv(GALLERY_QUICK_ENV, "1" if committed.get("mode") == "quick" else "0")
    monkeypatch.setattr(sys, "argv", [str(script)])
    monkeypatch.chdir(GALLERY)
    runpy.run_path(str(script), run_name="__main__")
    fresh = facts_of(tmp_path / f"{script.stem}.png")
    assert fresh == committed, (
        f"{script.stem}.png is stale: run `supermesh gallery --only {script.stem}` and commit it"
    )
