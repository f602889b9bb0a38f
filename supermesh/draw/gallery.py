"""The gallery: where each ``gallery/plot_*.py`` script writes its image, and running them all.

Every script runs in its own Python process (:func:`run_gallery`); it asks
:func:`gallery_output` where to write and :func:`gallery_quick` whether to do less work.

Scripts follow the sphinx-gallery convention (a docstring whose first line is the title, fixed
seeds, one image each) and write ``<name>.png`` into the folder named by
:data:`GALLERY_DIR_ENV` (default: next to the script).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from supermesh.errors import InputFileError, SupermeshError

__all__ = [
    "GALLERY_DIR_ENV",
    "GALLERY_QUICK_ENV",
    "GalleryRun",
    "find_gallery",
    "gallery_output",
    "gallery_quick",
    "gallery_scripts",
    "run_gallery",
    "script_title",
]

GALLERY_DIR_ENV = "SUPERMESH_GALLERY_DIR"
"""Environment variable: the folder gallery scripts write their images to."""

GALLERY_QUICK_ENV = "SUPERMESH_GALLERY_QUICK"
"""Environment variable: when set to 1, gallery scripts run fewer sizes and shorter solves."""


def gallery_output(script: str | Path, argv: Sequence[str] | None = None) -> Path:
    """Where a gallery script writes its image: ``<dir>/<script name>.png``.

    ``<dir>`` is the first command-line argument, else the folder named by the environment
    variable :data:`GALLERY_DIR_ENV`, else the script's own folder.

    Examples
    --------
    >>> gallery_output("gallery/plot_x.py", ["out"]).as_posix()
    'out/plot_x.png'
    """
    args = list(argv) if argv is not None else sys.argv[1:]
    folder = args[0] if args else os.environ.get(GALLERY_DIR_ENV) or Path(script).parent
    return Path(folder) / (Path(script).stem + ".png")


def gallery_quick() -> bool:
    """True when :data:`GALLERY_QUICK_ENV` is ``1``: gallery scripts then do less work."""
    return os.environ.get(GALLERY_QUICK_ENV, "") == "1"


@dataclass(frozen=True)
class GalleryRun:
    """Outcome of one gallery script.

    Attributes
    ----------
    script : Path
    title : str
        First line of the script's docstring.
    image : Path
        The image it was expected to write.
    seconds : float
        Wall time.
    ok : bool
        Exit status 0 and the image exists.
    error : str
        The last lines of its stderr when it failed.
    """

    script: Path
    title: str
    image: Path
    seconds: float
    ok: bool
    error: str = ""


def find_gallery(folder: str | Path | None = None) -> Path:
    """The gallery folder: ``folder`` if given, else ``gallery/`` of the source checkout.

    Raises
    ------
    InputFileError
        If the folder does not exist or holds no ``plot_*.py`` script.
    """
    path = Path(folder) if folder is not None else Path(__file__).resolve().parents[2] / "gallery"
    if not path.is_dir() or not any(path.glob("plot_*.py")):
        raise InputFileError(
            f"no gallery scripts (plot_*.py) in {path}",
            hint="run from a source checkout of supermesh or pass --gallery DIR",
        )
    return path


def gallery_scripts(folder: Path, only: str | None = None) -> list[Path]:
    """The ``plot_*.py`` scripts of ``folder`` in name order, those containing ``only``.

    Raises
    ------
    SupermeshError
        If ``only`` matches no script.
    """
    scripts = sorted(folder.glob("plot_*.py"))
    if only:
        scripts = [s for s in scripts if only in s.stem]
        if not scripts:
            raise SupermeshError(
                f"no gallery script matches {only!r}",
                hint="names: " + ", ".join(s.stem for s in sorted(folder.glob("plot_*.py"))),
            )
    return scripts


def script_title(script: Path) -> str:
    """The first line of the script's module docstring (its title), or its name.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "plot_a.py"
    >>> _ = p.write_text("'''A title.\\n\\nMore.'''\\n")
    >>> script_title(p)
    'A title.'
    """
    try:
        doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
    except (OSError, SyntaxError, ValueError):
        doc = None
    return doc.strip().splitlines()[0] if doc else script.stem


def run_gallery(
    out: str | Path | None = None,
    *,
    folder: str | Path | None = None,
    only: str | None = None,
    quick: bool = False,
    timeout: float = 300.0,
    on_start: Callable[[int, int, Path], None] | None = None,
) -> list[GalleryRun]:
    """Run every gallery script with the Agg backend; return one :class:`GalleryRun` each.

    Parameters
    ----------
    out : path, optional
        Folder for the images (created); default: the gallery folder itself.
    folder : path, optional
        The gallery folder (default: :func:`find_gallery`).
    only : str, optional
        Run only scripts whose name contains this.
    quick : bool
        Set :data:`GALLERY_QUICK_ENV`: fewer sizes, shorter solves.
    timeout : float
        Seconds allowed per script.
    on_start : callable, optional
        Called as ``on_start(i, count, script)`` before the ``i``-th script (from 0) runs: a
        progress display hooks in here.

    Returns
    -------
    list of GalleryRun

    Raises
    ------
    InputFileError, SupermeshError
        No gallery, nothing matching ``only``, or an output folder that cannot be made.
    """
    # absolute: each script runs with the gallery as its working folder, where a relative
    # path (--gallery gallery) would name gallery/gallery/plot_x.py
    gallery = find_gallery(folder).resolve()
    scripts = gallery_scripts(gallery, only)
    target = Path(out) if out is not None else gallery
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SupermeshError(f"cannot create {target}: {exc.strerror or exc}") from None
    env = dict(os.environ, MPLBACKEND="Agg")
    env[GALLERY_DIR_ENV] = str(target.resolve())
    env[GALLERY_QUICK_ENV] = "1" if quick else "0"
    runs = []
    for i, script in enumerate(scripts):
        if on_start is not None:
            on_start(i, len(scripts), script)
        image = target / (script.stem + ".png")
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, str(script)],
                env=env,
                cwd=gallery,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            error = "" if proc.returncode == 0 else _tail(proc.stderr)
        except subprocess.TimeoutExpired:
            error = f"timed out after {timeout:g} s"
        ok = not error and image.is_file()
        if not error and not ok:
            error = f"finished but wrote no {image.name}"
        runs.append(
            GalleryRun(
                script=script,
                title=script_title(script),
                image=image,
                seconds=time.perf_counter() - start,
                ok=ok,
                error=error,
            )
        )
    return runs


def _tail(text: str, lines: int = 4) -> str:
    return "\n".join(text.strip().splitlines()[-lines:]) or "failed with no message"
