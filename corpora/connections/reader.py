"""``read_connections(folder)``: the whole study folder into one :class:`ConnectionsData`."""

from __future__ import annotations

from pathlib import Path

from wordplay_audit.corpora.connections.answers import read_model
from wordplay_audit.corpora.connections.data import NOT_MODEL_FILES, ConnectionsData
from wordplay_audit.corpora.connections.gold import check_flat_gold, read_gold, read_taxonomy
from wordplay_audit.corpora.connections.humans import read_humans
from wordplay_audit.errors import InputError


def read_connections(folder: str | Path) -> ConnectionsData:
    """Read a Connections study folder (gold, taxonomy, model answers, human players).

    Model answer files are every other ``*.json`` in the folder. Raises :class:`InputError` with
    one line naming the file and the place when a file cannot be used at all; every lesser
    irregularity is counted in ``data.quirks`` and noted in ``data.notes``.
    """
    folder = Path(folder)
    if folder.is_file():
        raise InputError(f"{folder}: is a file, expected a folder of the Connections study's files")
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder (expected the Connections study's files)")
    data = ConnectionsData(folder)
    index_of = read_gold(folder, data)
    read_taxonomy(folder, data, index_of)
    check_flat_gold(folder, data)
    model_files = sorted(p for p in folder.glob("*.json") if p.name not in NOT_MODEL_FILES)
    if not model_files:
        raise InputError(f"{folder}: no model answer files (*.json besides the gold and human files)")
    for path in model_files:
        read_model(path, data, index_of)
    read_humans(folder, data)
    return data
