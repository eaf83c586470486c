"""Sphinx configuration of the API reference (``make docs`` builds it into ``site/``).

The reference is generated from the docstrings (reST, with numpy-style sections read by
napoleon) and built strictly: every warning is an error and every cross-reference must
resolve (``-W --keep-going -n``). Nothing is fetched: no intersphinx, so the names of outside
libraries (pandas, numpy, the standard library …) are listed in ``nitpick_ignore_regex`` by
module; a reference into ``wordplay_audit`` must resolve.

Each object is documented once, in the module that defines it (the public API page documents
``wordplay_audit.<name>``, the ``wa.*`` a user calls). Three additions to plain autodoc, in
:func:`setup`:

* A reference that does not name a documented object as written resolves, when it names the
  same object, to where that object is documented: a package's re-export
  (``wordplay_audit.analysis.agreement.fleiss_kappa``), a name relative to the docstring's own
  module (``weights``, ``corpora.contract``), an annotation naming the defining module.
* Every name in ``__all__`` of ``wordplay_audit`` and of the packages in ``WHOLE_PACKAGES`` must
  be documented; a missing one is a warning (so an error).
* napoleon leaves the prose docstrings of constants, attributes and properties as written.
"""

from __future__ import annotations

import importlib
import sys

project = "wordplay-audit"
author = "the wordplay-audit authors"
copyright = "the wordplay-audit authors"  # noqa: A001 - the name Sphinx reads

import wordplay_audit  # noqa: E402

release = version = wordplay_audit.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode"]
root_doc = "index"
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_title = f"wordplay-audit {release} API reference"
html_static_path: list[str] = []

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
autodoc_class_signature = "separated"
autodoc_default_options = {"exclude-members": "__init__, __new__", "ignore-module-all": True}
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True  # an "Attributes" section as fields: no second entry beside a property

nitpicky = True
# outside libraries (no intersphinx: the build is offline); by module, never a blanket switch
OUTSIDE = (
    "pandas", "pd", "numpy", "np", "scipy", "statsmodels", "sklearn", "pyarrow", "duckdb", "openai",
    "httpx", "label_studio_sdk", "typer", "click", "matplotlib", "tenacity", "tqdm",
    "pathlib", "os", "collections", "collections.abc", "typing", "typing_extensions", "datetime",
    "enum", "dataclasses", "io", "json", "random", "concurrent", "threading", "asyncio",
    "contextlib", "ast", "html", "http", "socketserver", "types", "abc", "numbers", "decimal", "fractions",
    "warnings", "subprocess", "re", "csv", "sqlite3", "hashlib", "functools", "itertools",
)  # fmt: skip
BUILTINS = (
    "object", "int", "float", "str", "bytes", "bool", "complex", "list", "dict", "tuple", "set",
    "frozenset", "type", "None", "NoneType", "Ellipsis", "slice", "range", "callable",
    "Exception", "ValueError", "TypeError", "KeyError", "RuntimeError", "UserWarning",
    "Warning", "OSError", "BaseException", "LookupError", "AttributeError", "ArithmeticError",
)  # fmt: skip
_OUTSIDE_RE = "|".join(m.replace(".", r"\.") for m in OUTSIDE)
nitpick_ignore_regex = [
    (r"py:.*", rf"({_OUTSIDE_RE})(\..*)?"),
    # a private helper class or a type variable in a signature (not part of the reference)
    (r"py:class", r"wordplay_audit\..*\._[A-Z]\w*|wordplay_audit\.corpora\.progress\.T"),
    (r"py:.*", "|".join(BUILTINS)),
]

# the packages whose every exported name the reference documents (the public API first)
WHOLE_PACKAGES = (
    "wordplay_audit",
    "wordplay_audit.errors",
    "wordplay_audit.analysis.agreement",
    "wordplay_audit.analysis.correction",
    "wordplay_audit.analysis.report",
    "wordplay_audit.judges",
    "wordplay_audit.annotate",
    "wordplay_audit.corpora.balderdash",
    "wordplay_audit.corpora.connections",
    "wordplay_audit.corpora.wof",
)


def _load_lazy_names(app) -> None:
    """Touch every exported name of the lazily loading packages, so ``automodule … :members:``
    finds them (a lazy name is in the module's namespace only once it was first used)."""
    for name in WHOLE_PACKAGES:
        module = importlib.import_module(name)
        for export in getattr(module, "__all__", ()):
            getattr(module, export)


def _documented(env) -> dict[int, str]:
    """id of each documented Python object → the name it is documented under."""
    cache = getattr(env, "_wa_documented", None)
    if cache is not None and cache[0] == len(env.domaindata["py"]["objects"]):
        return cache[1]
    found: dict[int, str] = {}
    for full in env.domaindata["py"]["objects"]:
        obj = _resolve(full)
        if obj is not None and not isinstance(obj, int | float | str | bool | tuple | frozenset):
            found.setdefault(id(obj), full)
    env._wa_documented = (len(env.domaindata["py"]["objects"]), found)
    return found


def _resolve(full: str):
    """The object a dotted name means (a module, or an attribute of one), or None."""
    parts = full.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module_name)
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _candidates(node) -> list[str]:
    """Full names a reference may mean: as written, then read from the module whose docstring
    holds it and from the documented module, and from each of their parent packages (a docstring
    names its neighbours as Python code would: ``weights``, ``.weights``, ``corpora.contract``)."""
    target = node.get("reftarget", "").lstrip("~.")
    places = []
    source = str(node.source or "")
    if "docstring of " in source:
        places.append(source.rsplit("docstring of ", 1)[1].split(":")[0])
    if node.get("py:module"):
        places.append(node["py:module"] + (f".{node['py:class']}" if node.get("py:class") else ""))
    found = [target]
    for place in places:
        parts = place.split(".")
        found += [".".join([*parts[:cut], target]) for cut in range(len(parts), 0, -1)]
    return [name for name in dict.fromkeys(found) if name.startswith("wordplay_audit")]


def _same_object(app, env, node, contnode):
    """A reference to an object documented under another name (its public alias, or a name
    relative to the docstring's own module) resolves there."""
    if node.get("refdomain") != "py":
        return None
    documented, names = _documented(env), env.domaindata["py"]["objects"]
    for name in _candidates(node):
        obj = _resolve(name) if name not in names else None
        where = name if name in names else documented.get(id(obj)) if obj is not None else None
        if where is None and obj is not None:  # a constant: the documented one of that name and object
            last = name.rsplit(".", 1)[-1]
            where = next(
                (full for full in names if full.rsplit(".", 1)[-1] == last and _resolve(full) is obj), None
            )
        if where:
            node["reftarget"] = where
            if "refspecific" in node:
                del node["refspecific"]
            return env.get_domain("py").resolve_xref(env, node["refdoc"], app.builder, node["reftype"], where, node,
                                                     contnode)  # fmt: skip
    return None


def _check_exports(app, env) -> None:
    """Every exported name of a wholly documented package is documented (under some name)."""
    from sphinx.util import logging

    log = logging.getLogger("wordplay_audit.docs")
    names = env.domaindata["py"]["objects"]
    by_last: dict[str, list[str]] = {}
    for full in names:
        by_last.setdefault(full.rsplit(".", 1)[-1], []).append(full)
    for package in WHOLE_PACKAGES:
        module = sys.modules[package]
        for export in getattr(module, "__all__", ()):
            obj = getattr(module, export)
            if isinstance(obj, type(sys)):
                continue  # a sub-module: its own page (or none) decides
            if not any(_resolve(full) is obj for full in by_last.get(export, ())):
                log.warning("%s.%s is exported but not documented in docs/api", package, export)


def _keep_data_docstring(app, what, name, obj, options, lines) -> None:
    """napoleon reads the first line of a constant's or attribute's docstring as ``type: text``;
    these docstrings are prose (``What a tied vote gives: …``), so they are kept as written."""
    if what in ("data", "attribute", "property"):
        _KEPT[id(lines)] = list(lines)


def _restore_data_docstring(app, what, name, obj, options, lines) -> None:
    kept = _KEPT.pop(id(lines), None)
    if kept is not None:
        lines[:] = kept


_KEPT: dict[int, list[str]] = {}


def setup(app):
    app.connect("autodoc-process-docstring", _keep_data_docstring, priority=100)
    app.connect("autodoc-process-docstring", _restore_data_docstring, priority=900)
    app.connect("builder-inited", _load_lazy_names)
    app.connect("missing-reference", _same_object)
    app.connect("env-check-consistency", _check_exports)
    return {"parallel_read_safe": False}
