# The two commands of the README. Each creates .venv and installs what it needs when needed:
# `make serve` only what serving needs (.venv/.installed-serve), `make test` and the hand-run
# tools the dev extras too (.venv/.installed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SERVE_STAMP := $(VENV)/.installed-serve
STAMP := $(VENV)/.installed
PIP := $(BIN)/python -m pip --disable-pip-version-check

.PHONY: serve test lint check clean bench diff diff-corpus fuzz soak

$(BIN)/python:
	@echo ">> creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(SERVE_STAMP): pyproject.toml | $(BIN)/python
	@echo ">> installing contentapi and what serving needs into $(VENV) (about a minute the first time)"
	$(PIP) install --progress-bar off -e .
	touch $(SERVE_STAMP)

$(STAMP): $(SERVE_STAMP) pyproject.toml
	@echo ">> installing the dev extras (tests, lint, benchmark) into $(VENV)"
	$(PIP) install --progress-bar off -e ".[dev]"
	touch $(STAMP)

serve: $(SERVE_STAMP)
	$(BIN)/contentapi serve

check: $(SERVE_STAMP)
	$(BIN)/contentapi check

# The suite in three pytest-xdist workers, one file per worker at a time, in the order
# tests/conftest.py gives (the heavy files early, among light ones). On 2 cores two workers
# left them idle a third of the time (the tests wait on server processes and PostgreSQL), and a
# third fills it; a fourth ran PostgreSQL out of its 100 connections. Measured on 2 cores:
# 271–294 s of tests in `.ci/run` on a fresh clone (two workers in xdist's order: 327–341 s);
# 320–333 s since the events' and REST customization's tests (5,168 tests, 2026-11-27).
# A plain `.venv/bin/python -m pytest` runs it in one process and also prints the figures the
# fault, resource and fuzz tests measure.
# Bytecode is cached even where the environment says not to (PYTHONDONTWRITEBYTECODE): the
# suite starts some hundred Python processes (servers, workers, commands), and each would
# otherwise compile the whole package again.
TEST_WORKERS ?= 3
test: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# Hand-run fuzzing: the properties of tests/api/security/test_fuzz_*.py with FUZZ_EXAMPLES times
# their examples (24: about 13,800 requests per database), on SQLite and PostgreSQL, ~10 min.
FUZZ_EXAMPLES ?= 24
fuzz: $(STAMP)
	CONTENTAPI_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/api/security -k fuzz -p no:cacheprovider

# Hand-run benchmark: contentapi vs the reference Strapi (bench/reference/, installed by the
# run itself; needs Node.js 20 and npm): the fixed scenarios and the floor (~9 min), the cached
# reads and the 304 path (~3 min), then 500 random list queries on both servers (~27 min);
# plus ~2 min the first time for npm install.
# BENCH_ARGS="--random-queries 0": the fixed scenarios only; "--scenarios random": the random ones.
bench: $(STAMP)
	$(BIN)/python -m bench.run $(BENCH_ARGS)

# Hand-run differential test against the same reference Strapi: 2,500 REST queries and 5,000
# GraphQL documents per database, plus the reference's start (and its npm install the first
# time); DIFF_ARGS="--queries N --graphql N" for other counts.
diff: $(STAMP)
	$(BIN)/python -m diff.run $(DIFF_ARGS)

# Hand-run corpus test: real Strapi v4 projects (diff/corpus/: FoodAdvisor and two starters),
# the requests their front ends build answered by contentapi on SQLite and PostgreSQL and
# compared with the reference Strapi's recorded answers (no Strapi needed), ~1 min; writes
# docs/corpus-report.md. CORPUS_ARGS="--record" records Strapi's answers again (Node.js 20, npm).
diff-corpus: $(STAMP)
	$(BIN)/python -m diff.corpus $(CORPUS_ARGS)

# Hand-run soak test: mixed REST and GraphQL reads and writes against `contentapi serve
# --workers 2` on a fresh PostgreSQL database (BENCH_POSTGRES), an hour by default; reports
# 5xx answers, RSS and open-descriptor slopes, and checks every acknowledged write is there.
# SOAK_ARGS="--duration 180" for 3 minutes. A 5-second version runs in `make test`.
soak: $(STAMP)
	$(BIN)/python -m bench.soak $(SOAK_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests examples diff bench
	$(BIN)/ruff format --check src tests examples diff bench

clean:
	rm -rf $(VENV) .data .pytest_cache
