"""Wheel of Fortune (LLMike): metrics per model, plots, and win rates under human labels."""
