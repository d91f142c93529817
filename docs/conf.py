"""Sphinx configuration: PyData theme, numpydoc, sphinx-gallery (executes examples/), MyST."""

import os
import sys

sys.path.insert(0, os.path.abspath(".."))
os.environ.setdefault("MPLBACKEND", "Agg")

import sktdi  # noqa: E402

project = "sktdi"
author = "sktdi developers"
copyright = "2026, sktdi developers"
release = version = sktdi.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "images/README.md"]
templates_path = ["_templates"]

autosummary_generate = True
autodoc_default_options = {}  # the class template asks for inherited members; the skip hook keeps sktdi's only
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "substitution"]
myst_substitutions = {"version": version}

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"\.py$",  # execute every example
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
}

html_theme = "pydata_sphinx_theme"
html_title = f"sktdi {version}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "logo": {"text": f"sktdi {version}"},
}
html_static_path = []


def _skip_inherited_from_other_packages(app, what, name, obj, skip, options):
    """Document a class's own members only: scikit-learn's and sktime's inherited methods
    (set_*_request, get_params, ...) belong to their docs, and their docstrings reference
    labels this site does not have."""
    module = getattr(obj, "__module__", None) or getattr(
        getattr(obj, "fget", None), "__module__", ""
    )
    if what == "class" and not str(module).startswith("sktdi"):
        return True
    return None


def _hide_private_bases(app, name, obj, options, bases):
    """'Bases:' lists public classes only: SSMClassifier's private _BaseSSM is replaced by
    its own bases (its public methods are documented on the estimators themselves, through
    ``:inherited-members:`` in the class template)."""
    public = []
    for base in bases:
        if base.__name__.startswith("_"):
            public.extend(b for b in base.__bases__ if b is not object and b not in public)
        elif base not in public:
            public.append(base)
    bases[:] = public


def setup(app):
    app.connect("autodoc-skip-member", _skip_inherited_from_other_packages)
    app.connect("autodoc-process-bases", _hide_private_bases)
