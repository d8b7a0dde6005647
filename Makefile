# LightNote — the two commands a newcomer runs are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# One stamp per installed set, named by the checksum of its files: editing a requirements
# file re-installs on the next make. The runtime set serves; the dev set adds the tools.
RUNTIME_STAMP := $(VENV)/.installed-runtime-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
DEV_STAMP := $(VENV)/.installed-dev-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: run test test-embedded test-services serve lint typecheck reliability bench bench-smoke system-deps browser-deps install install-runtime clean help verify verify-deps scale-check scale-deps

help:
	@echo "make run    - install, migrate, create the demo user, serve http://$(HOST):$(PORT)/"
	@echo "make test   - the whole suite: embedded pass (SQLite+fakeredis) and services pass (MariaDB+Redis)"
	@echo "make serve  - gunicorn with production settings (LIGHTNOTE_* from the environment)"
	@echo "             (run the background worker beside it: .venv/bin/python manage.py worker)"
	@echo "make lint / typecheck / reliability / bench"
	@echo "make verify - model-check the confirmation protocol with Spin (verify/)"
	@echo "make scale-check - the guarantees on nginx + 3 app servers + a Redis Cluster (bench/scale/)"

# mysqlclient compiles against the MariaDB client headers; a bare machine lacks them.
system-deps:
	@if ! pkg-config --exists libmariadb 2>/dev/null && ! pkg-config --exists mysqlclient 2>/dev/null; then \
	  echo "Installing system packages for mysqlclient (pkg-config, libmariadb-dev)..."; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq pkg-config libmariadb-dev >/dev/null \
	    || { echo "Could not install pkg-config and libmariadb-dev: install them, then re-run."; exit 1; }; \
	fi

# The browser test drives Debian's Chromium; install it where missing, like the headers above.
# Without it (and without root) the test is skipped with its reason, and fails under
# REQUIRE_SERVICES=1.
browser-deps:
	@if [ ! -x /usr/bin/chromium ]; then \
	  echo "Installing Chromium for the browser test..."; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null \
	    || { echo "Could not install chromium: the browser test will be skipped."; \
	         if [ -n "$$REQUIRE_SERVICES" ]; then exit 1; fi; }; \
	fi
	@# A CJK font, so the screenshots the browser tests take show Chinese (not boxes); optional.
	@if [ -x /usr/bin/chromium ] && ! fc-list 2>/dev/null | grep -qi "wenquanyi\|noto sans cjk"; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq fonts-wqy-microhei >/dev/null 2>&1 \
	    || echo "No CJK font installed: screenshots show Chinese as boxes (the tests do not need it)."; \
	fi

$(RUNTIME_STAMP): requirements.txt
	@$(MAKE) --no-print-directory system-deps
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements.txt
	@rm -f $(VENV)/.installed-runtime-*; touch $(RUNTIME_STAMP)

$(DEV_STAMP): $(RUNTIME_STAMP) requirements-dev.txt
	$(BIN)/pip install -q -r requirements-dev.txt
	@rm -f $(VENV)/.installed-dev-*; touch $(DEV_STAMP)

install-runtime: $(RUNTIME_STAMP)

install: $(DEV_STAMP)

# The background worker (reminders: docs/reminders.md) runs beside the web server on the same
# SQLite file, and stops with it: Ctrl-C reaches both, and the trap ends a worker left behind.
run: install
	@export LIGHTNOTE_DEBUG=1; \
	$(BIN)/python manage.py migrate --noinput -v 0 && \
	$(BIN)/python manage.py ensure_demo_user && \
	echo "" && echo "  LightNote is serving on http://$(HOST):$(PORT)/   (log in as demo / demo-pass-2026; staff: admin / admin-pass-2026)" && \
	echo "  MCP (streamable HTTP): http://$(HOST):$(PORT)/mcp/   (a token: .venv/bin/python manage.py mcp_token create --user demo --name laptop)" && \
	echo "  The reminder worker runs beside it; mail (sign-up, reset, reminders) is printed here." && echo "" && \
	{ $(BIN)/python manage.py worker -v 0 & worker=$$!; \
	  trap 'kill -TERM $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	  $(BIN)/python manage.py runserver $(HOST):$(PORT); }

# Both passes always run; the target fails if either fails. They share nothing (SQLite in
# memory + fakeredis; MariaDB + Redis db 15), so on two or more cores they run side by side:
# the embedded pass (the longer one) prints as it goes, the services pass's output is kept
# and printed whole when both have ended (it runs in a session of its own, which an
# interrupted `make test` stops). TEST_JOBS=1 runs them one after the other.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -ge 2 ] && echo 2 || echo 1)
test: install browser-deps
	@if [ "$(TEST_JOBS)" = 1 ]; then \
	  status=0; \
	  $(MAKE) --no-print-directory test-embedded || status=1; \
	  $(MAKE) --no-print-directory test-services || status=1; \
	  exit $$status; \
	fi; \
	log=$$(mktemp -t lightnote-test-services.XXXXXX) || exit 1; \
	echo "== both test passes side by side (TEST_JOBS=1 runs them one after the other); the services pass's output follows the embedded pass's"; \
	setsid $(MAKE) --no-print-directory test-services > "$$log" 2>&1 & services=$$!; \
	trap 'kill -TERM -- -'"$$services"' 2>/dev/null; rm -f "$$log"; exit 130' INT TERM; \
	status=0; \
	$(MAKE) --no-print-directory test-embedded || status=1; \
	wait $$services || status=1; \
	cat "$$log"; rm -f "$$log"; \
	exit $$status

test-embedded: install
	@echo "== test pass 1/2: embedded (SQLite + in-process fakeredis)"
	$(BIN)/pytest $(PYTEST_ARGS)

test-services: install
	@echo "== test pass 2/2: services (MariaDB + Redis)"
	LIGHTNOTE_TEST_BACKEND=services $(BIN)/pytest $(PYTEST_ARGS)

# The web process only. The background worker is its own process (as many as you like, on
# any machine that shares the database): `.venv/bin/python manage.py worker` (docs/reminders.md).
serve: install-runtime
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput -v 0
	LIGHTNOTE_BIND=$${LIGHTNOTE_BIND:-$(HOST):$(PORT)} exec $(BIN)/gunicorn lightnote.wsgi:application

lint: install
	$(BIN)/ruff check .

typecheck: install
	$(BIN)/mypy agent todos notes lightnote mcpserver reminders

# The heavy suites at full size: state machines with many more examples, and the race
# tests repeated (each run races real threads/processes against MariaDB and Redis).
RELIABILITY_TESTS := tests/test_store_state_machine.py tests/test_confirm_state_machine.py \
	tests/test_confirm_concurrency.py tests/test_cards.py tests/test_idempotency.py \
	tests/test_continuation_api.py tests/test_api_fuzz.py \
	tests/test_tool_policy_fuzz.py tests/test_page_fuzz.py tests/test_card_lineage_state_machine.py \
	tests/test_card_tabs_race.py tests/test_card_undo.py tests/test_planner_backtracking.py \
	tests/test_edge_schemathesis.py
reliability: install
	@for round in 1 2 3 4 5; do \
	  echo "== reliability round $$round/5"; \
	  LIGHTNOTE_TEST_BACKEND=services LIGHTNOTE_HYPOTHESIS_EXAMPLES=$${LIGHTNOTE_HYPOTHESIS_EXAMPLES:-400} \
	    LIGHTNOTE_FUZZ_EXAMPLES=$${LIGHTNOTE_FUZZ_EXAMPLES:-300} \
	    LIGHTNOTE_RACE_ROUNDS=$${LIGHTNOTE_RACE_ROUNDS:-30} \
	    LIGHTNOTE_SCHEMATHESIS_EXAMPLES=$${LIGHTNOTE_SCHEMATHESIS_EXAMPLES:-100} \
	    REQUIRE_SERVICES=1 $(BIN)/pytest -q $(RELIABILITY_TESTS) $(PYTEST_ARGS) || exit 1; \
	done

# Over real HTTP: its own gunicorn, MariaDB database and (empty) Redis database; see bench/run.py.
bench: install
	$(BIN)/python -m bench

bench-smoke: install
	LIGHTNOTE_BENCH_SIZE=smoke $(BIN)/python -m bench

# --- the protocol's model (verify/, docs/confirmation-protocol.md "Model check") ---------
# Spin and the C compiler its verifier needs; installed where missing, like browser-deps.
verify-deps:
	@if ! command -v spin >/dev/null || ! command -v gcc >/dev/null; then \
	  echo "Installing spin and gcc for the model check..."; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq spin gcc >/dev/null \
	    || { echo "Could not install spin and gcc: install them, then re-run."; exit 1; }; \
	fi

# The table against the code, then every configuration exhaustively (VERIFY_BOUND=ci: the
# test suite's smaller bound).
VERIFY_BOUND ?= full
verify: install verify-deps
	$(BIN)/pytest -q tests/test_protocol_model.py -m "not spin"
	$(BIN)/python -m verify.check --bound $(VERIFY_BOUND)

# --- a multi-server deployment on loopback, measured (bench/scale/, docs/operations.md) ----
# nginx in front of three gunicorns, a 6-node Redis Cluster, a fresh MariaDB database; all
# started and stopped by the run. Writes bench/results/scale.json. Not part of make test.
scale-deps:
	@if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then \
	  echo "Installing nginx for the scale check..."; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nginx >/dev/null \
	    || { echo "Could not install nginx: install it, then re-run."; exit 1; }; \
	fi
	@command -v redis-server >/dev/null && command -v redis-cli >/dev/null \
	  || { echo "redis-server and redis-cli are needed (Debian package redis-server)"; exit 1; }

scale-check: install scale-deps
	timeout 1800 $(BIN)/python -m bench.scale

clean:
	rm -rf $(VENV) staticfiles db.sqlite3
