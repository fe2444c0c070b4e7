# One command runner for people and CI. Every target installs what it needs first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
LLM    ?= local
DEMO   := .demo

.PHONY: install install-all install-local install-browser install-ocr test test-fast lint docs demo bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# torch is pinned to the CPU build that this kind of machine keeps on disk; any other
# version pulls a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[dev]"
	touch $@

# The embedding model's one-off ONNX export (~10 s) happens here, not on the first ingest.
install: $(VENV)/.installed
	@HF_HUB_OFFLINE=1 $(BIN)/archivist model prepare

# Every optional extra (xllamacpp, llama.cpp's prebuilt wheel, among them), the local
# models (0.5B for the tests, 1.5B for the demo; cached outside the repository, fetched
# once), plus Debian's Chromium for the browser tests and Tesseract for OCR.
$(VENV)/.installed-all: $(VENV)/.installed
	$(BIN)/pip install -q -e ".[all]"
	touch $@

install-all: $(VENV)/.installed-all install-browser install-ocr
	$(BIN)/archivist model fetch 0.5b 1.5b

# The local provider's runtime and the model LLM names (local = local:1.5b, or local:0.5b),
# for `make demo`; a path or another provider needs nothing here.
$(VENV)/.installed-local: $(VENV)/.installed
	$(BIN)/pip install -q -e ".[local]"
	touch $@

install-local: $(VENV)/.installed-local
	@case "$(LLM)" in \
		local|local:1.5b) $(BIN)/archivist model fetch 1.5b ;; \
		local:0.5b) $(BIN)/archivist model fetch 0.5b ;; \
	esac

# Tesseract reads scanned PDF pages about four times faster than RapidOCR (the ocr extra).
install-ocr:
	@if ! command -v tesseract >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq tesseract-ocr >/dev/null; \
	fi

install-browser:
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium >/dev/null; \
	fi

test: install-all
	HF_HUB_OFFLINE=1 $(BIN)/pytest -q --durations=15

# The unit tier: pure and fast (no model, no index, no server), well under a minute.
test-fast: install
	HF_HUB_OFFLINE=1 $(BIN)/pytest -q tests/unit

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src

# Regenerate docs/reference/ from the code (tests/app/test_reference_docs.py fails when stale).
docs: install
	HF_HUB_OFFLINE=1 $(BIN)/python -m archivist.app.reference

# Answers with the local 1.5B model by default; LLM=scripted (no model), or any provider.
demo: install $(if $(filter local%,$(LLM)),install-local)
	HF_HUB_OFFLINE=1 ARCHIVIST_LLM__MODEL=$(LLM) $(BIN)/python -m archivist.app.demo --workdir $(DEMO)

bench: install-all
	HF_HUB_OFFLINE=1 $(BIN)/python bench/run_all.py

clean:
	rm -rf $(DEMO) .pytest_cache .mypy_cache .ruff_cache test-artifacts
