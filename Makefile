# overhead: `make demo` is the main job, `make test` what CI runs.
SHELL := /bin/bash
.DEFAULT_GOAL := help
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Where the authors' raw data is: the shared reference copy, or a clone under data/external.
IBM_DATA ?= $(firstword $(wildcard $(OVERHEAD_REFERENCE)/kvm-docker-comparison ../shared/reference/kvm-docker-comparison /work/shared/reference/kvm-docker-comparison data/external/kvm-docker-comparison))
TIDY ?= data/tidy/ibm
export PYTHONHASHSEED := 0

.PHONY: help setup debian test lint demo ingest reproduce bench lab clean

help:
	@echo "make demo       ingest the IBM RC25482 raw data and rebuild its tables and figures"
	@echo "make test       install everything needed, then ruff and pytest (notebooks included)"
	@echo "make reproduce  run every notebook with papermill into figures/rc25482/"
	@echo "make bench      time ingest and parsers, print the figures"
	@echo "make lab        start JupyterLab"

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	touch $@

setup: $(STAMP)

debian:
	sh scripts/debian-packages.sh

lint: setup
	$(BIN)/ruff check lib tests notebooks scripts
	shellcheck -x -s sh runners/*.sh scripts/*.sh

test: debian setup lint
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup
	@# and each notebook as a user opens it: default parameters (data/tidy/ibm, figures/rc25482),
	@# executed by nbmake in order (the report notebook assembles the others' outputs)
	$(BIN)/python -m pytest -q -p no:xdist -p no:cacheprovider --nbmake $(sort $(wildcard notebooks/[0-9]*.ipynb))

ingest: setup
	@if [ -z "$(IBM_DATA)" ] || [ ! -d "$(IBM_DATA)" ]; then \
	  echo "The authors' raw data was not found (looked at ../shared/reference/kvm-docker-comparison and data/external/kvm-docker-comparison)."; \
	  echo "Get it with:"; \
	  echo "  git clone https://github.com/thewmf/kvm-docker-comparison data/external/kvm-docker-comparison"; \
	  echo "or point at a copy: make demo IBM_DATA=/path/to/kvm-docker-comparison"; \
	  exit 1; fi
	$(BIN)/overhead ingest-ibm "$(IBM_DATA)" --out $(TIDY)

demo: ingest
	$(BIN)/overhead summary $(TIDY)
	$(BIN)/overhead reproduce --ibm "$(IBM_DATA)" --tidy $(TIDY)

reproduce: ingest
	$(BIN)/overhead reproduce --ibm "$(IBM_DATA)" --tidy $(TIDY)

bench: setup
	$(BIN)/python scripts/bench.py --ibm "$(IBM_DATA)"

lab: setup
	$(BIN)/jupyter lab notebooks/

clean:
	rm -rf data/tidy data/cache figures/rc25482 notebooks/executed
