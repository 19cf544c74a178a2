# The two commands of the README. Each creates .venv and installs when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve test lint check clean bench diff fuzz

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

serve: $(STAMP)
	$(BIN)/contentapi serve

test: $(STAMP)
	$(BIN)/python -m pytest

# Hand-run fuzzing: the properties of tests/api/security/test_fuzz_*.py with FUZZ_EXAMPLES times
# their examples (6: about 13,800 requests per database), on SQLite and PostgreSQL, ~10 min.
FUZZ_EXAMPLES ?= 6
fuzz: $(STAMP)
	CONTENTAPI_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/api/security -k fuzz -p no:cacheprovider

# Hand-run benchmark: contentapi vs the reference Strapi (../shared/reference/strapi), ~15 min.
bench: $(STAMP)
	$(BIN)/python -m bench.run $(BENCH_ARGS)

# Hand-run differential test against the reference Strapi (../shared/reference/strapi), ~10 min.
diff: $(STAMP)
	$(BIN)/python -m diff.run $(DIFF_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests examples diff bench
	$(BIN)/ruff format --check src tests examples diff bench

check: $(STAMP)
	$(BIN)/contentapi check

clean:
	rm -rf $(VENV) .data .pytest_cache
