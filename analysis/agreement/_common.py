"""The warning class of the agreement package."""

from __future__ import annotations

import warnings


class UndefinedStatisticWarning(RuntimeWarning):
    """A statistic is undefined for this input (e.g. κ when every rating is one category).

    The function returns ``nan`` and emits this warning; silence it where that is expected with
    ``warnings.catch_warnings()`` + ``warnings.simplefilter("ignore", UndefinedStatisticWarning)``.
    """


def warn_undefined(message: str) -> None:
    """Emit :class:`UndefinedStatisticWarning` pointing at the caller of the public function."""
    warnings.warn(message, UndefinedStatisticWarning, stacklevel=3)
