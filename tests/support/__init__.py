"""Helpers the tests share: imported as ``tests.support.<module>``, never collected as tests."""
