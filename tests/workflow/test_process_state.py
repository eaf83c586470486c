"""A library call leaves the process as it found it: ``wa.read_balderdash`` in a notebook does
not switch Arrow's memory pool nor trim the C heap; the command line does both, in its own
process, around its reads."""

from __future__ import annotations

import ctypes

import pyarrow as pa
import pytest

import wordplay_audit as wa
from wordplay_audit.corpora.balderdash import SimConfig, simulate_to_folder


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    folder = tmp_path_factory.mktemp("state") / "export"
    simulate_to_folder(folder, seed=5, config=SimConfig(games_per_deck=1, n_rounds=3, labels_per_stratum=2))
    return folder


@pytest.fixture
def libraries(monkeypatch):
    """Names of the C libraries loaded through ctypes meanwhile (``malloc_trim`` needs libc)."""
    loaded: list[str] = []
    real = ctypes.CDLL

    def recording(name, *args, **kwargs):
        loaded.append(str(name))
        return real(name, *args, **kwargs)

    monkeypatch.setattr(ctypes, "CDLL", recording)
    return loaded


def test_read_balderdash_keeps_the_memory_pool_and_the_heap(export, monkeypatch, libraries):
    before = pa.default_memory_pool().backend_name
    chosen = []
    monkeypatch.setattr(pa, "set_memory_pool", chosen.append)
    data = wa.read_balderdash(export)
    assert len(data.obs) == 1 * 2 * 3 * 2 * 3  # games × decks × models × players × rounds
    assert chosen == []
    assert pa.default_memory_pool().backend_name == before
    assert libraries == []  # no libc for malloc_trim


def test_the_command_sets_them_in_its_own_process(export, monkeypatch, libraries, run_cli):
    chosen = []
    monkeypatch.setattr(pa, "set_memory_pool", chosen.append)
    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    code, out, err = run_cli("balderdash", "metrics", str(export), "--json")
    assert code == 0, err
    assert [pool.backend_name for pool in chosen] == ["system"]
    assert any("libc" in name or name.endswith(".so.6") for name in libraries)
