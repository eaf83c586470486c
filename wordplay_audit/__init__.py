"""The ``wordplay-audit`` console entry point; the work lives in annotate, judges, analysis, corpora."""

__version__ = "0.1.0"

__all__ = ["__version__"]
