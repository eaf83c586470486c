# Two commands a user needs: `make demo` and `make test`. Both build .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
OUT ?= demo-out
# extras installed by `make test`; CI adds the embedding judge's: make test EXTRAS=dev,embed
EXTRAS ?= dev

.PHONY: venv dev demo test lint bench clean labelstudio labelstudio-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

venv: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .

dev: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'

demo: venv
	$(BIN)/wordplay-audit demo --out $(OUT)

test: dev labelstudio-venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: dev
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache build *.egg-info

# Label Studio (an application with its own pins) lives in its own venv under the ignored var/.
LS_VENV := var/labelstudio-venv
LS_VERSION ?= 1.23.*
LS_PORT ?= 8080
LS_DATA ?= var/labelstudio-data

$(LS_VENV)/bin/label-studio:
	$(PYTHON) -m venv $(LS_VENV)
	$(LS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LS_VENV)/bin/python -m pip install --quiet 'label-studio==$(LS_VERSION)'

labelstudio-venv: $(LS_VENV)/bin/label-studio

# Start a local server on 127.0.0.1 (Ctrl-C stops it); prints the URL and how to get a token.
labelstudio: labelstudio-venv
	@mkdir -p $(LS_DATA)
	@echo "Label Studio: http://127.0.0.1:$(LS_PORT)  (data in $(LS_DATA))"
	@echo "Sign up in the browser, then Account & Settings -> Legacy Token; export LABEL_STUDIO_URL=http://127.0.0.1:$(LS_PORT) LABEL_STUDIO_API_KEY=<token>"
	LABEL_STUDIO_BASE_DATA_DIR=$(abspath $(LS_DATA)) LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN=true \
	SENTRY_DSN= LATEST_VERSION_CHECK=false COLLECT_ANALYTICS=false \
	$(LS_VENV)/bin/label-studio start --internal-host 127.0.0.1 --port $(LS_PORT) --no-browser --data-dir $(abspath $(LS_DATA))
