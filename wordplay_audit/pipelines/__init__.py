"""Pipelines of the app layer: read (corpora) → analyse (analysis, judges) → write (report, tables)."""
