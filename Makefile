# Two entry points for humans and CI: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip "setuptools>=68"
	$(BIN)/python -m pip install --quiet -e '.[test]'
	# protoc for the schema freshness test; pinned (see scripts/gen_proto.py), no deps
	# because it declares protobuf<6 but never imports it. Optional off CI.
	-$(BIN)/python -m pip install --quiet --no-deps grpcio-tools==1.65.5
	# onnxruntime (the extra of that name), the oracle tests/test_onnx_infer.py compares
	# shapes with; those tests skip without it.
	-$(BIN)/python -m pip install --quiet 'onnxruntime>=1.17'
	touch $(STAMP)

# Lint the bundled example repository; exit code 1 (problems found) is the demo.
demo: $(STAMP)
	@$(BIN)/pbtxt-lint check examples/model_repository; status=$$?; test $$status -le 1

lint: $(STAMP)
	$(BIN)/ruff check pbtxt_lint tests scripts bench
	$(BIN)/ruff format --check pbtxt_lint tests scripts bench

typecheck: $(STAMP)
	$(BIN)/mypy pbtxt_lint scripts

unit: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .cache .pytest_cache .mypy_cache .ruff_cache
