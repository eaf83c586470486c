"""Benchmarks and simulations (``bench_*.py``, ``sim_*.py``); not collected by pytest.

``python -m benchmarks`` lists them; ``python -m benchmarks NAME [NAME ...]`` runs them.
"""
