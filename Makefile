# Two entry points for humans and CI: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Where the tests unpack tritonserver (tests/oracle.py): PBTXT_LINT_CACHE shares one copy.
TRITON_CACHE := $(or $(PBTXT_LINT_CACHE),.cache/tritonserver)
TRITON_READY := $(TRITON_CACHE)/nvidia-pytriton-0.7.0/.complete

.PHONY: demo test lint typecheck unit snapshots docs test-rule bench clean

$(STAMP): pyproject.toml
	@echo "make: creating $(VENV) and installing pbtxt-lint (editable) with its test, lsp and"
	@echo "      cloud extras, grpcio-tools and onnxruntime from PyPI: about a minute, once"
	$(PYTHON) -m venv $(VENV)
	# setuptools>=77 reads the SPDX `license` string; the pre-commit test builds the hook
	# without isolation from this environment's setuptools (offline), so it must be here.
	$(BIN)/python -m pip install --quiet --upgrade pip "setuptools>=77"
	$(BIN)/python -m pip install --quiet -e '.[test,lsp,s3,gcs,azure]'
	# protoc for the schema freshness test; pinned (see scripts/gen_proto.py), no deps
	# because it declares protobuf<6 but never imports it. Optional off CI.
	-$(BIN)/python -m pip install --quiet --no-deps grpcio-tools==1.65.5
	# onnxruntime (the extra of that name), the oracle tests/test_onnx_infer.py compares
	# shapes with; those tests skip without it.
	-$(BIN)/python -m pip install --quiet 'onnxruntime>=1.17'
	touch $(STAMP)
	@echo "make: $(VENV) is ready"

# Lint the bundled example repository; exit code 1 (problems found) is the demo.
demo: $(STAMP)
	@$(BIN)/pbtxt-lint check examples/model_repository; status=$$?; test $$status -le 1

lint: $(STAMP)
	$(BIN)/ruff check pbtxt_lint tests scripts bench
	$(BIN)/ruff format --check pbtxt_lint tests scripts bench
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy pbtxt_lint scripts

unit: $(STAMP)
	@test -e $(TRITON_READY) || echo "make: the agreement tests download tritonserver 2.51 (the" \
		"nvidia-pytriton 0.7.0 wheel from PyPI, about 330 MB, once) into $(TRITON_CACHE)"
	$(BIN)/python -m pytest -n 2 -q

test: lint typecheck unit

# Rewrite tests/snapshots/ (what each fixture case reports) after an intended change;
# `make snapshots CODE=PL330` rewrites one rule's only.
snapshots: $(STAMP)
	$(BIN)/python -m pytest -q tests/test_snapshots.py --snapshot-update $(if $(CODE),-n 0 -k "$(CODE)")

# Regenerate docs/rules.md, docs/backends.md, the README tables and rules/index.py.
docs: $(STAMP)
	$(BIN)/python scripts/gen_docs.py

# What to run while writing a rule: its fixture cases, its snapshot, its docs and the
# real tritonserver's verdict on its cases (`make test-rule CODE=PL330`).
test-rule: $(STAMP)
	@test -n "$(CODE)" || { echo "usage: make test-rule CODE=PL330"; exit 2; }
	$(BIN)/python -m pytest -n 0 -q -k "$(CODE)" tests/test_rules.py tests/test_snapshots.py tests/test_triton_agreement.py
	$(BIN)/python -m pytest -n 0 -q tests/test_docs.py

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .cache .pytest_cache .mypy_cache .ruff_cache
