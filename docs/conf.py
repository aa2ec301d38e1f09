"""Sphinx configuration of the concomp documentation.

Build with ``python -m sphinx -W -b html docs docs/_build/html`` (see the README). The API
pages are written here from each public module's ``__all__`` (so every public name is
documented and none is listed by hand); the gallery in ``docs/examples`` runs on the CPU
at build time; the performance page includes ``benchmarks/RESULTS.md``, the rendering of
the latest benchmark result file.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("CONCOMP_DEVICE", "cpu")  # the gallery runs on the CPU everywhere

import concomp  # noqa: E402

project = "concomp"
author = "concomp developers"
copyright = "concomp developers"
version = release = concomp.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "examples/README.rst", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_theme = "alabaster"
html_static_path: list[str] = []

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_mock_imports = ["cupy", "cupyx", "torch"]
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
myst_heading_anchors = 2
suppress_warnings = ["myst.header"]

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "image_scrapers": (),
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "plot_gallery": "True",
}

#: Modules whose ``__all__`` gets an API page, with the page title.
API_MODULES = {
    "concomp": "concomp: the top-level API",
    "concomp.scc": "concomp.scc: strongly connected components",
    "concomp.csgraph": "concomp.csgraph: SciPy drop-in",
    "concomp.variants": "concomp.variants: the design space",
    "concomp.options": "concomp.options: engine settings",
    "concomp.results": "concomp.results: results in the input's ids",
    "concomp.membership": "concomp.membership: components, frames, matrices",
    "concomp.incremental": "concomp.incremental: batches of inserts and queries",
    "concomp.streaming": "concomp.streaming: edge streams",
    "concomp.io": "concomp.io: graph files",
    "concomp.generators": "concomp.generators: graph generators",
    "concomp.nx": "concomp.nx: NetworkX backend",
    "concomp.dask": "concomp.dask: Dask clusters",
    "concomp.image": "concomp.image: labelling images and volumes",
    "concomp.ndimage": "concomp.ndimage: drop-in for scipy.ndimage.label",
    "concomp.measure": "concomp.measure: drop-in for skimage.measure.label",
    "concomp.errors": "concomp.errors: exceptions",
    "concomp.testing": "concomp.testing: oracles and the graph zoo",
}
#: Names that are not documented objects of their own.
_SKIP = {"__version__"}


def _api_page(module: str, title: str) -> str:
    mod = importlib.import_module(module)
    # submodules named in __all__ (concomp.errors, ...) have their own page
    names = [n for n in mod.__all__ if n not in _SKIP and not inspect.ismodule(getattr(mod, n))]
    lines = [title, "=" * len(title), "", f".. automodule:: {module}", "   :no-members:", ""]
    lines += [f".. currentmodule:: {module}", "", ".. autosummary::", "   :toctree: generated", ""]
    lines += [f"   {n}" for n in names]
    return "\n".join(lines) + "\n"


def _write_api_pages() -> None:
    out = DOCS / "api"
    out.mkdir(exist_ok=True)
    for module, title in API_MODULES.items():
        page = out / f"{module}.rst"
        text = _api_page(module, title)
        if not page.exists() or page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")


_write_api_pages()
