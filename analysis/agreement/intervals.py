"""The result types of the bootstrap: :class:`BootstrapOptions` (how to resample) and
:class:`Interval` (a point estimate with its intervals, SEs and test)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from wordplay_audit.errors import ParameterError, check_choice

from ._common import CI_METHODS, DRAWS, CIMethod, Draws, check_confidence, check_whole
from .inference import Benchmark

__all__ = ["BootstrapOptions", "Interval"]


@dataclass(frozen=True)
class BootstrapOptions:
    """How to resample and which interval to report (checked when made).

    ``n_boot``
        Resamples (default 1,000); ``0`` skips the bootstrap: point estimates with nan bounds
        and ``method`` ``"none"``.
    ``seed``
        Seed of ``numpy.random.default_rng`` (None: fresh entropy).
    ``confidence``
        Two-sided level, e.g. 0.95 → 2.5 % and 97.5 % limits.
    ``method``
        Which interval fills ``ci_low``/``ci_high``: ``"bca"`` (default) or ``"percentile"``;
        both are always computed. When BCa is undefined (every resample on one side of the
        estimate, so :math:`\\hat z_0 = \\pm\\infty`) the percentile interval is used and
        ``Interval.method`` says so (per category: element-wise, silently).
    ``draws``
        ``"multinomial"`` (fast, default) or ``"indices"`` (same draws as a naive loop or
        ``scipy.stats.bootstrap``); see the module docstring.
    ``max_memory_gb``
        Cap on the memory the resampled statistics may take (8 bytes per statistic value per
        resample, twice for the interval computations); a larger ``n_boot`` is refused before
        any work with a message that states the cap and how to raise it.
    ``progress``
        A bar on stderr while resampling: True / False, or None for the calling context's
        default (:mod:`wordplay_audit.corpora.progress`: off in a notebook, on for a command's
        readable summary on a terminal).

    Raises :class:`~wordplay_audit.errors.ParameterError` for a value out of range.
    """

    n_boot: int = 1000
    seed: int | None = 0
    confidence: float = 0.95
    method: CIMethod = "bca"
    draws: Draws = "multinomial"
    max_memory_gb: float = 4.0
    progress: bool | None = None

    def __post_init__(self) -> None:
        n_boot = check_whole("n_boot", self.n_boot, low=0)
        if n_boot == 1:
            raise ParameterError("n_boot: expected 0 (no bootstrap) or a whole number ≥ 2, got 1")
        object.__setattr__(self, "n_boot", n_boot)
        object.__setattr__(self, "confidence", check_confidence(self.confidence))
        check_choice("method", self.method, CI_METHODS)
        check_choice("draws", self.draws, DRAWS)
        try:
            ok = 0.0 < float(self.max_memory_gb) < float("inf")  # also refuses nan
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ParameterError(f"max_memory_gb: expected a number of GB > 0, got {self.max_memory_gb!r}")


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap interval(s).

    ``value``, ``ci_low``, ``ci_high`` (the interval of ``method``), ``percentile`` and ``bca``
    (both intervals), ``boot_se`` (standard deviation of the bootstrap values, ddof=1), ``se``
    (analytic standard error where one exists, else None), ``n_boot`` (resamples drawn),
    ``n_undefined`` (resamples where the statistic was nan) and ``distribution`` (the
    bootstrap values). For per-category κ the numbers are arrays of length *K* and
    ``categories`` names them. Without bootstrap (``n_boot`` 0) the bounds are nan and
    ``method`` is ``"none"``. ``reason``, ``ci_reason``, ``se_reason``: why the value, the
    interval (and ``boot_se``), the analytic SE is nan, None where it is not (a tuple per
    category; :mod:`.reasons`).
    """

    value: float | np.ndarray
    ci_low: float | np.ndarray
    ci_high: float | np.ndarray
    method: str
    percentile: tuple
    bca: tuple
    boot_se: float | np.ndarray
    se: float | None
    n_boot: int
    n_undefined: int | np.ndarray
    confidence: float
    categories: tuple[str, ...] | None = None
    distribution: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    reason: str | tuple | None = None
    ci_reason: str | tuple | None = None
    se_reason: str | None = None
    z: float = float("nan")
    p_value: float = float("nan")
    df: int = 0
    wald_low: float = float("nan")
    wald_high: float = float("nan")
    test_reason: str | None = None
    benchmark: Benchmark | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{value, reason, ci_low, ci_high, ci_reason, se, se_reason, boot_se, method,
        confidence, n_boot, n_undefined, z, p_value, df, wald_low, wald_high, test_reason}``
        and ``benchmark`` when one was asked for."""
        out = {
            "value": self.value,
            "reason": self.reason,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "ci_reason": self.ci_reason,
            "se": self.se,
            "se_reason": self.se_reason,
            "boot_se": self.boot_se,
            "method": self.method,
            "confidence": self.confidence,
            "n_boot": self.n_boot,
            "n_undefined": self.n_undefined,
            "z": self.z,
            "p_value": self.p_value,
            "df": self.df,
            "wald_low": self.wald_low,
            "wald_high": self.wald_high,
            "test_reason": self.test_reason,
        }
        if self.benchmark is not None:
            out["benchmark"] = self.benchmark.to_dict()
        return out

    def frame(self) -> pd.DataFrame:
        """Per-category intervals as a DataFrame indexed by category."""
        if self.categories is None:
            raise ParameterError("frame(): only per-category intervals have one row per category")
        return pd.DataFrame(
            {
                "kappa": self.value,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
                "boot_se": self.boot_se,
            },
            index=pd.Index(list(self.categories), name="category"),
        )
