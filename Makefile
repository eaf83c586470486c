# Two commands a user needs: `make demo` and `make test`. Both build .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
OUT ?= demo-out

.PHONY: venv dev demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

venv: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .

dev: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'

demo: venv
	$(BIN)/wordplay-audit demo --out $(OUT)

test: dev
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: dev
	$(BIN)/ruff check .

bench: dev
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache build *.egg-info
