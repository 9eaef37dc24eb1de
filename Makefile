# overhead: `make demo` is the main job, `make test` what CI runs.
SHELL := /bin/bash
.DEFAULT_GOAL := help
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Where the authors' raw data is (the order overhead.rc25482.data searches): $OVERHEAD_REFERENCE,
# the shared copy beside the checkout (this project's CI), or the pinned clone under data/external
# that `make demo` makes itself (scripts/get-ibm-data.sh) when none exists.
IBM_CLONE := data/external/kvm-docker-comparison
IBM_DATA ?= $(firstword $(wildcard $(OVERHEAD_REFERENCE)/kvm-docker-comparison ../shared/reference/kvm-docker-comparison $(IBM_CLONE)))
TIDY ?= data/tidy/ibm
# The campaign make demo measures (its name is the folder under data/tidy and figures/).
CAMPAIGN ?= data/campaigns/local-quick.yml
export PYTHONHASHSEED := 0

.PHONY: help setup debian test lint demo studies study data ingest reproduce bench bench-parsers lab publish strip clean hosts-up hosts-down fleet-up fleet-down

help:
	@echo "make demo       (root) the paper's tables and figures from the authors' raw data, then measured here"
	@echo "                (local hosts up, campaign local-quick, the same notebooks on it, hosts down)"
	@echo "make studies    (root) the four neighbouring studies measured here (make study NAME=fsync: one)"
	@echo "make test       install everything needed, then ruff and pytest (notebooks included)"
	@echo "make reproduce  run every notebook with papermill into figures/rc25482/"
	@echo "make bench      time ingest, parsers and the campaign harness, print the figures"
	@echo "make bench-parsers  the parsers alone (INPUTS=saved set, SAVE_INPUTS=file to save one)"
	@echo "make lab        start JupyterLab"
	@echo "make hosts-up   (root) start the local hosts: sshd on 127.0.0.1:2222, dockerd, the Debian image and VM disk"
	@echo "make hosts-down stop what hosts-up started (images stay cached in data/hosts/)"
	@echo "make fleet-up N=4  (root) N hosts in network namespaces on a bridge, each with its own sshd"
	@echo "make fleet-down stop what fleet-up started"

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	touch $@

# The project's kernel, named in every notebook's metadata (JupyterLab and papermill pick it).
KERNEL := $(VENV)/share/jupyter/kernels/overhead/kernel.json
$(KERNEL): $(STAMP)
	$(BIN)/python -m ipykernel install --sys-prefix --name overhead --display-name "Python 3 (overhead)"

# JupyterLab's defaults for this project: no news feed nor update check (offline, and no
# "receive official Jupyter news?" toast over every notebook); users can change them in Lab.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
$(LAB_SETTINGS): scripts/lab-overrides.json $(STAMP)
	mkdir -p $(dir $@)
	cp scripts/lab-overrides.json $@

setup: $(STAMP) $(KERNEL) $(LAB_SETTINGS)

# Clear outputs before a commit, keeping the kernelspec and language_info that papermill needs.
strip: setup
	$(BIN)/python -m overhead.notebook notebooks/*.ipynb

debian:
	sh scripts/debian-packages.sh
	sh images/wrk2/build.sh

lint: setup
	$(BIN)/ruff check lib tests notebooks scripts
	$(BIN)/lint-imports --no-cache
	shellcheck -x -s sh runners/*.sh scripts/*.sh images/debian/*.sh images/wrk2/*.sh

test: debian setup lint
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup -m "not quiet" --durations=15
	@# tests that measure the machine (a CPU hog's trials flagged and re-run) run alone
	$(BIN)/python -m pytest -q -p no:xdist -m quiet -rP
	@# and each notebook as a user opens it: default parameters (data/tidy/ibm, figures/rc25482),
	@# executed by nbmake in order (the report notebook assembles the others' outputs)
	$(BIN)/python -m pytest -q -p no:xdist -p no:cacheprovider --nbmake $(sort $(wildcard notebooks/[0-9]*.ipynb))

# The authors' data: found, or cloned at the pinned commit and verified (offline: one line
# saying what to run, and a non-zero exit).
data:
	@if [ -z "$(IBM_DATA)" ]; then sh scripts/get-ibm-data.sh $(IBM_CLONE); \
	elif [ ! -d "$(IBM_DATA)" ]; then echo "$(IBM_DATA): not a folder (IBM_DATA)" >&2; exit 2; fi

ingest: data setup
	$(BIN)/overhead ingest-ibm "$(or $(IBM_DATA),$(IBM_CLONE))" --out $(TIDY)

# The paper twice: from the authors' raw data, and measured here on local-quick (native,
# Docker net=host and NAT, the VM); resumes the campaign when run again. Needs root.
demo: ingest debian
	$(BIN)/overhead summary $(TIDY)
	IBM_DATA="$(or $(IBM_DATA),$(IBM_CLONE))" TIDY=$(TIDY) CAMPAIGN=$(CAMPAIGN) sh scripts/demo.sh

# The neighbouring studies (start-up, fsync, the sysbench suite, containers-2026), each campaign
# measured here and its report, hosts up and down around them; resumable like demo. One of them:
# make study NAME=startup|fsync|sysbench-suite|containers-2026
studies: debian setup
	PAPER=no STUDIES=all sh scripts/demo.sh

study: debian setup
	@if [ -z "$(NAME)" ]; then echo "make study NAME=startup|fsync|sysbench-suite|containers-2026" >&2; exit 2; fi
	PAPER=no STUDIES="$(NAME)" sh scripts/demo.sh

reproduce: ingest
	$(BIN)/overhead reproduce --ibm "$(or $(IBM_DATA),$(IBM_CLONE))" --tidy $(TIDY)

# the parsers alone; INPUTS=file times them on a saved input set, SAVE_INPUTS=file saves one
bench-parsers: data setup
	$(BIN)/python scripts/bench.py --parsers-only --ibm "$(or $(IBM_DATA),$(IBM_CLONE))" \
	  $(if $(SAVE_INPUTS),--save-inputs "$(SAVE_INPUTS)") $(if $(INPUTS),--inputs "$(INPUTS)")

bench: data setup hosts-up
	$(BIN)/python scripts/bench.py --ibm "$(or $(IBM_DATA),$(IBM_CLONE))"
	$(BIN)/python scripts/bench_campaign.py
	$(BIN)/python scripts/bench_store.py
	$(BIN)/python scripts/bench_fleet.py
	$(BIN)/python scripts/bench_design.py

# JupyterLab on notebooks/ (root needs --allow-root); more options in LAB_ARGS, e.g.
# make lab LAB_ARGS="--no-browser --ServerApp.port=8899"
lab: setup
	$(BIN)/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# A bundle per study present in figures/ (the authors' data, each campaign, each seed study):
# figures (PDF, SVG), tables (LaTeX, Markdown), report (HTML, PDF), manifest, in dist/<name>/
# and dist/<name>.zip. Offline: the PDF and the plotly static export use Debian's chromium.
publish: debian setup
	$(BIN)/overhead publish --out dist

# The local hosts that tests and the embedded campaigns measure on; state in data/hosts/.
hosts-up: debian setup
	sh scripts/hosts-up.sh

hosts-down:
	sh scripts/hosts-down.sh

# N hosts on this machine, each a network namespace with its own address on a bridge, sshd and
# host key (scripts/fleet-up.sh); inventory data/hosts/fleet/inventory.yml. Links are shaped
# and cut with scripts/fleet-link.sh. fleet-down stops all of it.
N ?= 4
fleet-up: debian setup
	sh scripts/fleet-up.sh $(N)

fleet-down:
	sh scripts/fleet-down.sh

clean:
	rm -rf data/tidy data/cache figures/rc25482 notebooks/executed
