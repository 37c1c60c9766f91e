"""Differential testing: pbtxt-lint and the real ``tritonserver`` judge the same configs.

The promise checked (the rule of ``test_triton_agreement.py``, per model):

* Triton rejects the model -> pbtxt-lint reports at least one error on it;
* Triton passes every poll-time check (``backend_missing``: it stopped only because no
  backend is installed) -> pbtxt-lint reports no error whose rule runs at parse or poll
  time.

Everything else Triton says (``crashed``, ``gpu_missing``, ``unknown``) is undecided and
counted as skipped. Rules of a later stage (load, inference) are not judged here: with
an empty backend folder no model ever reaches them.

Where the configs come from:

1. ``random_groups``: a seeded walker over the compiled schema
   (``MODEL_CONFIG_DESCRIPTOR``). Most configs start from a realistic model (python,
   ONNX, TensorRT, ... with inputs, outputs, batching, sequence controls, instance
   groups, version policies, warmup, metrics, batch I/O) whose values lean to the edges
   Triton checks (dims 0/-1/-2, preferred sizes around ``max_batch_size``, empty and
   duplicated names); then the walker sets, clears, adds or duplicates random fields
   anywhere in the message. Some groups are an ensemble with its composing models.
2. ``mutation_groups``: every fixture case and the example repository, copied under
   fresh folder names, with one config mutated: as text (change a data type, add or
   drop a dim, swap two names, remove a field, duplicate a block, break a map entry,
   typo a field or enum name, delete a brace, change a number) or, when it parses, as
   a message (the walker above).

Each batch of groups is written as one repository (unique folder names; each config
has no ``name`` or its folder's name, ensembles refer to their siblings), judged by
``tritonserver --disable-auto-complete-config`` with an empty backend folder (see
``oracle.py``) and by ``lint(..., SETTINGS)``, the engine behind ``pbtxt-lint check
--disable-auto-complete-config --triton-version 2.51`` (the oracle's
release: fields and platforms newer than it are errors there).

Known tritonserver 2.51 crashes are kept out of shared repositories (``crash_reasons``):
an empty ``model_repository_agents { }`` block, and an ensemble that depends on a cycle
of ensembles it is not part of. When a run crashes anyway, the batch is split in halves
until the group that crashes it is alone; it is reported as a new crash and its models
are skipped.

Used by ``tests/test_differential.py`` (a CI-sized run) and ``scripts/differential.py``
(the long run).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, cast

from fixture_cases import all_cases
from google.protobuf import text_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from oracle import TRITON_VERSION, TritonServer, Verdict

from pbtxt_lint.diagnostics import Diagnostic, Severity
from pbtxt_lint.linter import lint
from pbtxt_lint.rules.base import Stage
from pbtxt_lint.rules.registry import RULES_BY_CODE
from pbtxt_lint.schema import DATA_TYPE_DESCRIPTOR, ModelConfig
from pbtxt_lint.settings import Settings
from pbtxt_lint.targets import resolve
from pbtxt_lint.textproto.binder import is_map, is_repeated, message_type
from pbtxt_lint.textproto.parse import parse_config
from pbtxt_lint.textproto.tokenizer import Token, TokenKind, tokenize
from pbtxt_lint.textproto.tree import Block, Field, ListValue, parse_tree

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples" / "model_repository"
CONFIG = "config.pbtxt"
SETTINGS = Settings(auto_complete=False, target=resolve(TRITON_VERSION).release)
"""``pbtxt-lint check --disable-auto-complete-config --triton-version 2.51``: the model files
are read too (their checks run at load, which the verdicts compared here do not
reach), and model folders are judged as Triton polls them, version folders included."""
POLL_STAGES = frozenset({Stage.PARSE, Stage.POLL})
STRAY_NAMES = frozenset({"__pycache__", "__MACOSX", "lost+found"})
"""Folder names kept as they are when copied (renaming would change what they test)."""

Files = dict[str, bytes]
"""A model folder: relative path -> content; a path ending in "/" is an empty folder."""


@dataclass(frozen=True)
class Group:
    """Models that go into the same repository together (an ensemble and its steps)."""

    origin: str
    models: dict[str, Files]
    focus: str = ""
    """The model this group is about (the mutated one); "" for all of them."""

    def config_text(self, model: str) -> str | None:
        data = self.models[model].get(CONFIG)
        return None if data is None else data.decode("utf-8", "replace")


# =========================================================================== values

DATA_TYPES = tuple(value.name for value in DATA_TYPE_DESCRIPTOR.values)
REAL_TYPES = tuple(name for name in DATA_TYPES if name != "TYPE_INVALID")
BAD_TYPE_WORDS = ("TYPE_FLOAT32", "TYPE_BYTES", "FP32", "TYPE_FP8", "type_fp32")
SMALL_DIMS = (1, 1, 2, 3, 4, 16, 224, -1, -1, 0, -2)
EDGE_INTS = (-2, -1, 0, 0, 1, 1, 2, 3, 4, 8, 16, 64, 1000)
EDGE_UINTS = (0, 0, 1, 1, 2, 4, 8, 100, 1_000_000)
EDGE_FLOATS = (0.0, 0.5, 1.0, 1.5, -0.5, 2.0)
MAX_DEPTH = 5


class Walker:
    """Random values for any field of the schema, biased towards what Triton checks.

    ``tensors`` are the names strings lean towards (so that references between fields
    often resolve), ``models`` the sibling model names (for ``model_name``).
    """

    def __init__(self, rng: random.Random, tensors: Sequence[str], models: Sequence[str]) -> None:
        self.rng = rng
        self.tensors = list(tensors) or ["INPUT0", "OUTPUT0"]
        self.models = list(models)

    # ------------------------------------------------------------------ scalars

    def string(self, name: str) -> str:
        rng = self.rng
        if name in ("name", "input_name", "output_name", "target_name", "source_input", "key"):
            return rng.choice([*self.tensors, *self.tensors, "", "UNKNOWN"])
        if name == "model_name":
            return rng.choice([*self.models, *self.models, "no_such_model", ""])
        if name in ("platform",):
            return rng.choice(
                ["onnxruntime_onnx", "tensorrt_plan", "pytorch_libtorch", "ensemble", "python", ""]
            )
        if name == "backend":
            return rng.choice(["python", "onnxruntime", "tensorrt", "pytorch", "openvino", ""])
        if name == "profile":
            return rng.choice(["0", "1", "", "a", "-1"])
        if name == "family":
            return rng.choice(["nv_inference_first_response_histogram_ms", "", "my_family"])
        return rng.choice(["", "x", "1", "value", "../escape", "a b", "model.py"])

    def scalar(self, fd: FieldDescriptor) -> object:
        rng = self.rng
        cpp = fd.cpp_type
        if cpp == FieldDescriptor.CPPTYPE_ENUM:
            assert fd.enum_type is not None
            if rng.random() < 0.03:
                return rng.choice([42, 99])  # undeclared: proto3 enums are open
            return rng.choice(fd.enum_type.values).number
        if cpp == FieldDescriptor.CPPTYPE_BOOL:
            return rng.random() < 0.6
        if cpp in (FieldDescriptor.CPPTYPE_INT32, FieldDescriptor.CPPTYPE_INT64):
            return rng.choice(SMALL_DIMS if fd.name in ("dims", "shape", "dim") else EDGE_INTS)
        if cpp in (FieldDescriptor.CPPTYPE_UINT32, FieldDescriptor.CPPTYPE_UINT64):
            return rng.choice(EDGE_UINTS)
        if cpp in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
            return rng.choice(EDGE_FLOATS)
        return self.string(fd.name)

    def map_key(self, fd: FieldDescriptor) -> object:
        key_fd = message_type(fd).fields_by_name["key"]
        if key_fd.cpp_type == FieldDescriptor.CPPTYPE_STRING:
            return self.string("key")
        return self.rng.choice(EDGE_UINTS)

    # ------------------------------------------------------------------ messages

    def fill(self, msg: Message, depth: int = 0, density: float = 0.35) -> None:
        """Set a random subset of the fields of ``msg`` (one member per oneof)."""
        taken: set[str] = set()
        for fd in _descriptor(msg).fields:
            if self.rng.random() > density or _avoid(_descriptor(msg), fd):
                continue
            oneof = fd.containing_oneof
            if oneof is not None:
                if oneof.name in taken:
                    continue
                taken.add(oneof.name)
            self.set_random(msg, fd, depth)

    def set_random(self, msg: Message, fd: FieldDescriptor, depth: int) -> None:
        rng = self.rng
        container = getattr(msg, fd.name)
        if is_map(fd):
            value_fd = message_type(fd).fields_by_name["value"]
            for _ in range(rng.choice((0, 1, 1, 2))):
                key = self.map_key(fd)
                if value_fd.message_type is not None:
                    self.fill(container[key], depth + 1)
                else:
                    container[key] = self.scalar(value_fd)
        elif is_repeated(fd):
            for _ in range(rng.choice((0, 1, 1, 2, 3))):
                if fd.message_type is not None:
                    item = container.add()
                    if depth < MAX_DEPTH:
                        self.fill(item, depth + 1)
                else:
                    container.append(self.scalar(fd))
        elif fd.message_type is not None:
            container.SetInParent()
            if depth < MAX_DEPTH:
                self.fill(container, depth + 1)
        else:
            setattr(msg, fd.name, self.scalar(fd))

    def perturb(self, root: Message) -> str:
        """One random edit anywhere in ``root``; returns what was done, for the report."""
        rng = self.rng
        sites: list[tuple[Message, FieldDescriptor, str]] = []
        for msg, where in _messages(root, ""):
            sites.extend(
                (msg, fd, f"{where}{fd.name}")
                for fd in _descriptor(msg).fields
                if not _avoid(_descriptor(msg), fd) and not (msg is root and fd.name == "name")
            )
        msg, fd, where = rng.choice(sites)
        container = getattr(msg, fd.name)
        if is_repeated(fd) and not is_map(fd) and len(container) and rng.random() < 0.6:
            index = rng.randrange(len(container))
            action = rng.choice(("delete", "duplicate", "replace"))
            if action == "delete":
                del container[index]
            elif fd.message_type is not None:
                if action == "duplicate":
                    container.add().CopyFrom(container[index])
                else:
                    container[index].Clear()
                    self.fill(container[index], 1)
            elif action == "duplicate":
                container.append(container[index])
            else:
                container[index] = self.scalar(fd)
            return f"{action} {where}[{index}]"
        if _is_set(msg, fd) and rng.random() < 0.35:
            msg.ClearField(fd.name)
            return f"clear {where}"
        if fd.message_type is not None and not is_repeated(fd):
            container.Clear()
        self.set_random(msg, fd, 1)
        return f"set {where}"


def _descriptor(msg: Message) -> Descriptor:
    """The message's descriptor (the stubs give it the upb or the python class)."""
    return cast(Descriptor, msg.DESCRIPTOR)


def _avoid(owner: Descriptor, fd: FieldDescriptor) -> bool:
    """The walker leaves the repo-agent block alone: empty, it crashes tritonserver 2.51;
    otherwise it stops every check after it, as no agent is installed."""
    return owner.name == "ModelConfig" and fd.name == "model_repository_agents"


def _is_set(msg: Message, fd: FieldDescriptor) -> bool:
    if is_repeated(fd):
        return len(getattr(msg, fd.name)) > 0
    if fd.message_type is not None or fd.has_presence:
        return msg.HasField(fd.name)
    return bool(getattr(msg, fd.name))


def _messages(msg: Message, where: str) -> Iterator[tuple[Message, str]]:
    """``msg`` and every message inside it, with a readable path."""
    yield msg, where
    for fd, value in msg.ListFields():
        if fd.message_type is None:
            continue
        if is_map(fd):
            if message_type(fd).fields_by_name["value"].message_type is not None:
                for key in value:
                    yield from _messages(value[key], f"{where}{fd.name}[{key!r}].")
        elif is_repeated(fd):
            for index, item in enumerate(value):
                yield from _messages(item, f"{where}{fd.name}[{index}].")
        else:
            yield from _messages(value, f"{where}{fd.name}.")


# =========================================================================== random configs

KINDS = (
    ("python", 30),
    ("onnx", 14),
    ("tensorrt", 6),
    ("pytorch", 6),
    ("tensorflow", 3),
    ("openvino", 3),
    ("custom", 3),
    ("inferred", 6),
    ("bad_platform", 2),
)
_KIND_FILES: dict[str, tuple[str, ...]] = {
    "python": ("model.py",),
    "onnx": ("model.onnx",),
    "tensorrt": ("model.plan",),
    "pytorch": ("model.pt", "model.pt2"),
    "tensorflow": ("model.savedmodel/",),
    "openvino": ("model.xml", "model.bin"),
    "custom": ("model.so",),
    "bad_platform": ("model.onnx",),
}


FALSE_TRUE: dict[str, tuple[float, ...]] = {
    "int32_false_true": (0, 1, 0),
    "fp32_false_true": (0.0, 1.0, 0.0),
    "bool_false_true": (False, True, False),
}


def set_enum(msg: Message, field_name: str, value: str | int) -> None:
    """Set an enum field by name or number (any number: proto3 enums are open)."""
    setattr(msg, field_name, value)


def _pick(rng: random.Random, weighted: Sequence[tuple[str, int]]) -> str:
    names = [name for name, _ in weighted]
    return rng.choices(names, weights=[weight for _, weight in weighted])[0]


class RandomModels:
    """Realistic random models; ``group(index)`` is deterministic in (seed, index)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def group(self, index: int) -> Group:
        rng = random.Random(f"{self.seed}:random:{index}")
        base = f"r{index}"
        if rng.random() < 0.12:
            return self._ensemble_group(rng, base)
        kind = _pick(rng, KINDS)
        config, tensors = self._model(rng, kind)
        origin = f"random #{index} ({kind})"
        origin += self._walk(rng, config, tensors, [base])
        return Group(origin, {base: self._files(rng, base, config, kind)})

    # ------------------------------------------------------------------ one model

    def _model(self, rng: random.Random, kind: str) -> tuple[ModelConfig, list[str]]:
        config = ModelConfig()
        if rng.random() < 0.1:  # pure grammar: any field, anywhere
            names = ["INPUT0", "OUTPUT0", "INPUT1"]
            Walker(rng, names, []).fill(config, density=0.25)
            config.ClearField("name")
            self._platform(rng, config, kind)
            return config, names
        self._platform(rng, config, kind)
        mbs = rng.choices((0, 1, 4, 8, 16, -1, None), weights=(25, 8, 15, 25, 10, 3, 14))[0]
        if mbs is not None:
            config.max_batch_size = mbs
        inputs = self._tensors(rng, config, "input", "INPUT")
        outputs = self._tensors(rng, config, "output", "OUTPUT")
        names = [t.name for t in config.input] + [t.name for t in config.output]
        roll = rng.random()
        if roll < 0.3:
            self._dynamic_batching(rng, config)
        elif roll < 0.45:
            self._sequence_batching(rng, config, inputs)
        elif roll < 0.47:
            step = config.ensemble_scheduling.step.add()
            step.model_name = "r0"
        if rng.random() < 0.3:
            self._instance_groups(rng, config)
        if rng.random() < 0.15:
            self._version_policy(rng, config)
        if rng.random() < 0.1:
            for _ in range(rng.randint(1, 2)):
                key = rng.choice(("EXECUTION_ENV_PATH", "k", "", "max_batch_size"))
                config.parameters[key].string_value = rng.choice(("1", "", "x"))
        if rng.random() < 0.08:
            self._warmup(rng, config, inputs)
        if rng.random() < 0.04:
            self._metrics(rng, config)
        if rng.random() < 0.08:
            config.response_cache.enable = rng.random() < 0.8
        if rng.random() < 0.08:
            config.model_transaction_policy.decoupled = rng.random() < 0.8
        if rng.random() < 0.06:
            self._batch_io(rng, config, inputs, outputs)
        if rng.random() < 0.05:
            config.optimization.input_pinned_memory.enable = rng.random() < 0.5
            if rng.random() < 0.5:
                config.optimization.cuda.graphs = True
        if rng.random() < 0.01:  # no agent is installed: Triton stops right there
            agent = config.model_repository_agents.agents.add()
            agent.name = rng.choice(("checksum", "relocation"))
        return config, names

    def _platform(self, rng: random.Random, config: ModelConfig, kind: str) -> None:
        pairs = {
            "python": [("", "python")],
            "onnx": [("onnxruntime_onnx", ""), ("", "onnxruntime"), ("onnxruntime_onnx",) * 2],
            "tensorrt": [("tensorrt_plan", ""), ("", "tensorrt")],
            "pytorch": [("pytorch_libtorch", ""), ("", "pytorch"), ("torch_aoti", "pytorch")],
            "tensorflow": [("tensorflow_savedmodel", ""), ("tensorflow_graphdef", "tensorflow")],
            "openvino": [("", "openvino")],
            "custom": [("", "mybackend")],
            "inferred": [("", "")],
            "bad_platform": [("onnxruntim", ""), ("openvino", ""), ("python", "")],
        }
        platform, backend = rng.choice(pairs[kind])
        if rng.random() < 0.04:  # a pair Triton refuses
            platform, backend = rng.choice(
                [("tensorrt_plan", "onnxruntime"), ("ensemble", "python"), ("", "")]
            )
        if platform:
            config.platform = platform
        if backend:
            config.backend = backend

    def _tensors(
        self, rng: random.Random, config: ModelConfig, field_name: str, prefix: str
    ) -> list[str]:
        container = getattr(config, field_name)
        names: list[str] = []
        for index in range(rng.choice((0, 1, 1, 1, 2, 2, 3))):
            tensor = container.add()
            roll = rng.random()
            tensor.name = f"{prefix}{index}"
            if roll < 0.03:
                tensor.name = ""
            elif roll < 0.07 and names:
                tensor.name = names[-1]
            names.append(tensor.name)
            if rng.random() < 0.95:
                set_enum(tensor, "data_type", rng.choice(REAL_TYPES))
            rank = rng.choices((1, 2, 3, 0), weights=(35, 25, 35, 5))[0]
            if rank == 3 and field_name == "input" and rng.random() < 0.15:
                set_enum(tensor, "format", rng.choice(("FORMAT_NHWC", "FORMAT_NCHW")))
            tensor.dims.extend(rng.choice(SMALL_DIMS[:8]) for _ in range(rank))
            if tensor.dims and rng.random() < 0.06:
                tensor.dims[rng.randrange(len(tensor.dims))] = rng.choice((0, -2, -1))
            if rng.random() < 0.06:
                tensor.reshape.SetInParent()
                tensor.reshape.shape.extend(rng.choice(SMALL_DIMS[:8]) for _ in range(rank - 1))
            if rng.random() < 0.03:
                tensor.is_shape_tensor = True
            if rng.random() < 0.02:
                tensor.is_non_linear_format_io = True
            if field_name == "input":
                if rng.random() < 0.05:
                    tensor.optional = True
                if rng.random() < 0.05:
                    tensor.allow_ragged_batch = True
            elif rng.random() < 0.03:
                tensor.label_filename = rng.choice(("labels.txt", "../labels.txt"))
        return names

    def _dynamic_batching(self, rng: random.Random, config: ModelConfig) -> None:
        batching = config.dynamic_batching
        batching.SetInParent()
        mbs = config.max_batch_size
        if rng.random() < (0.6 if mbs > 0 else 0.1):
            sizes = (mbs, mbs, mbs, max(mbs // 2, 1), 1, mbs + 1, 0, -1, 2 * mbs)
            batching.preferred_batch_size.extend(
                rng.choice(sizes) for _ in range(rng.choice((1, 1, 2, 3)))
            )
        if rng.random() < 0.3:
            batching.max_queue_delay_microseconds = rng.choice(EDGE_UINTS)
        if rng.random() < 0.2:
            levels = rng.choice((0, 1, 2, 3))
            batching.priority_levels = levels
            batching.default_priority_level = rng.choice((0, 1, levels, levels + 1))
            if rng.random() < 0.5:
                policy = batching.priority_queue_policy[rng.choice((0, 1, 2, 5))]
                set_enum(policy, "timeout_action", rng.choice((0, 1)))
                policy.default_timeout_microseconds = rng.choice((0, 100))
        if rng.random() < 0.15:
            batching.preserve_ordering = True
        if rng.random() < 0.15:
            policy = batching.default_queue_policy
            set_enum(policy, "timeout_action", rng.choice((0, 1)))
            policy.default_timeout_microseconds = rng.choice((0, 100))
            policy.max_queue_size = rng.choice((0, 4))

    def _sequence_batching(
        self, rng: random.Random, config: ModelConfig, inputs: Sequence[str]
    ) -> None:
        sequence = config.sequence_batching
        sequence.SetInParent()
        mbs = config.max_batch_size
        if rng.random() < 0.4:
            sequence.direct.SetInParent()
            if rng.random() < 0.4:
                sequence.direct.minimum_slot_utilization = rng.choice((0.0, 0.5, 1.0, 1.5, -0.1))
        elif rng.random() < 0.6:
            sequence.oldest.SetInParent()
            sequence.oldest.max_candidate_sequences = rng.choice((0, 1, 4))
            if rng.random() < 0.5:
                sequence.oldest.preferred_batch_size.append(rng.choice((mbs, mbs + 1, 0, -1, 1)))
        if rng.random() < 0.3:
            sequence.max_sequence_idle_microseconds = rng.choice(EDGE_UINTS)
        kinds = ["CONTROL_SEQUENCE_START", "CONTROL_SEQUENCE_END", "CONTROL_SEQUENCE_READY"]
        kinds += ["CONTROL_SEQUENCE_CORRID"]
        for index in range(rng.choice((0, 1, 2, 2, 3))):
            control_input = sequence.control_input.add()
            roll = rng.random()
            control_input.name = (
                "" if roll < 0.05 else rng.choice(inputs) if roll < 0.1 and inputs else f"C{index}"
            )
            control = control_input.control.add()
            kind = rng.choice(kinds)
            set_enum(control, "kind", kind)
            lists = ["int32_false_true", "fp32_false_true", "bool_false_true"]
            chosen = [] if kind.endswith("CORRID") else [rng.choice(lists)]
            if rng.random() < 0.1:
                chosen.append(rng.choice(lists))
            if rng.random() < 0.08:
                chosen = []
            for name in dict.fromkeys(chosen):
                count = rng.choice((2, 2, 2, 1, 3))
                getattr(control, name).extend(FALSE_TRUE[name][:count])
            if kind.endswith("CORRID") and rng.random() < 0.85:
                set_enum(control, "data_type", rng.choice(REAL_TYPES))
            if rng.random() < 0.05:
                control_input.control.add().CopyFrom(control)
        for index in range(rng.choice((0, 0, 1))):
            state = sequence.state.add()
            state.input_name = f"STATE_IN{index}"
            state.output_name = f"STATE_OUT{index}"
            set_enum(state, "data_type", rng.choice(REAL_TYPES))
            state.dims.extend(rng.choice(SMALL_DIMS) for _ in range(rng.choice((0, 1, 2))))

    def _instance_groups(self, rng: random.Random, config: ModelConfig) -> None:
        for index in range(rng.choice((1, 1, 2))):
            group = config.instance_group.add()
            if rng.random() < 0.3:
                group.name = rng.choice((f"g{index}", "g0", ""))
            set_enum(group, "kind", rng.choice((0, 1, 2, 2, 3)))
            if rng.random() < 0.5:
                group.count = rng.choice((0, 1, 2, -1))
            if rng.random() < 0.15:
                group.gpus.append(rng.choice((0, 1, -1)))
            if rng.random() < 0.05:
                group.profile.append(rng.choice(("0", "", "a")))

    def _version_policy(self, rng: random.Random, config: ModelConfig) -> None:
        policy = config.version_policy
        roll = rng.random()
        if roll < 0.35:
            policy.latest.num_versions = rng.choice((0, 1, 2))
        elif roll < 0.55:
            policy.all.SetInParent()
        else:
            policy.specific.SetInParent()
            policy.specific.versions.extend(rng.choice(((1,), (2,), (), (1, 2), (0,), (-1,))))

    def _warmup(self, rng: random.Random, config: ModelConfig, inputs: Sequence[str]) -> None:
        warmup = config.model_warmup.add()
        warmup.name = rng.choice(("w", ""))
        warmup.batch_size = rng.choice((0, 1, 2, 64))
        for name in [*inputs[: rng.choice((0, 1, 2))], *(["NOPE"] if rng.random() < 0.2 else [])]:
            entry = warmup.inputs[name]
            set_enum(entry, "data_type", rng.choice(REAL_TYPES))
            entry.dims.extend(rng.choice(SMALL_DIMS[:6]) for _ in range(rng.choice((0, 1, 2))))
            choice = rng.choice(("zero_data", "random_data", "input_data_file", ""))
            if choice == "input_data_file":
                entry.input_data_file = "data.bin"
            elif choice:
                setattr(entry, choice, True)

    def _metrics(self, rng: random.Random, config: ModelConfig) -> None:
        control = config.model_metrics.metric_control.add()
        if rng.random() < 0.85:
            control.metric_identifier.family = rng.choice(
                ("nv_inference_first_response_histogram_ms", "", "custom")
            )
        if rng.random() < 0.85:
            control.histogram_options.SetInParent()
            control.histogram_options.buckets.extend(
                rng.choice(((1.0, 10.0), (), (5.0,), (10.0, 1.0)))
            )

    def _batch_io(
        self, rng: random.Random, config: ModelConfig, inputs: Sequence[str], outputs: Sequence[str]
    ) -> None:
        if rng.random() < 0.7:
            batch_input = config.batch_input.add()
            set_enum(batch_input, "kind", rng.randrange(6))
            batch_input.target_name.append(rng.choice(("BATCH", *inputs)))
            set_enum(
                batch_input, "data_type", rng.choice(("TYPE_INT32", "TYPE_FP32", "TYPE_INT64", 0))
            )
            batch_input.source_input.extend(
                rng.choice(((*inputs[:1],), (), ("NOPE",), (*inputs[:1], *inputs[:1])))
            )
        else:
            batch_output = config.batch_output.add()
            batch_output.target_name.extend(rng.choice(((*outputs[:1],), ("NOPE",), ())))
            batch_output.source_input.extend(rng.choice(((*inputs[:1],), (), ("NOPE",))))

    def _walk(
        self, rng: random.Random, config: ModelConfig, tensors: Sequence[str], models: Sequence[str]
    ) -> str:
        """0-2 schema-walker edits on top of the realistic model."""
        walker = Walker(rng, tensors, models)
        edits = [walker.perturb(config) for _ in range(rng.choice((0, 0, 0, 1, 1, 2)))]
        return f"; {', '.join(edits)}" if edits else ""

    def _files(self, rng: random.Random, name: str, config: ModelConfig, kind: str) -> Files:
        if rng.random() < 0.6:
            config.ClearField("name")
        else:
            config.name = name
        text = text_format.MessageToString(config, as_one_line=rng.random() < 0.2)
        files: Files = {CONFIG: text.encode()}
        artifacts = _KIND_FILES.get(kind) or (rng.choice(("model.py", "model.onnx", "x.bin")),)
        versions = ["1"]
        if rng.random() < 0.1:
            versions = rng.choice((["1", "2"], ["2"], ["01"], ["0"], ["v1"], []))
        for version in versions:
            for artifact in artifacts:
                files[f"{version}/{artifact}"] = b""
        if not versions:
            files["notes/"] = b""
        return files

    # ------------------------------------------------------------------ ensembles

    def _ensemble_group(self, rng: random.Random, base: str) -> Group:
        """An ensemble over 1-3 python models generated with it, sometimes broken."""
        mbs = rng.choice((0, 4, 8))
        steps: list[tuple[str, list[tuple[str, str]], list[tuple[str, str]]]] = []
        models: dict[str, Files] = {}
        dtype = rng.choice(("TYPE_FP32", "TYPE_INT64", "TYPE_STRING"))
        tensor = "E_IN"
        notes: list[str] = []
        for index in range(rng.choice((1, 2, 2, 3))):
            name = f"{base}_s{index}"
            step_config = ModelConfig(backend="python", max_batch_size=rng.choice((mbs, mbs, 0)))
            step_config.input.add(name="IN", data_type=dtype, dims=[rng.choice((4, 4, -1, 0))])
            step_config.output.add(name="OUT", data_type=dtype, dims=[4])
            if rng.random() < 0.15:
                notes.append(f"{name}: " + Walker(rng, ["IN", "OUT"], []).perturb(step_config))
            models[name] = self._files(rng, name, step_config, "python")
            produced = f"E_T{index}"
            steps.append((name, [("IN", tensor)], [("OUT", produced)]))
            tensor = produced
        ensembles = [base]
        if rng.random() < 0.15:  # a nested ensemble: base -> inner -> steps
            ensembles.append(f"{base}_inner")
        for position, name in enumerate(ensembles):
            config = ModelConfig(platform="ensemble", max_batch_size=mbs)
            last = steps[-1][2][0][1]
            config.input.add(name="E_IN", data_type=dtype, dims=[4])
            config.output.add(name=last, data_type=dtype, dims=[4])
            own_steps = steps
            if position == 0 and len(ensembles) > 1:
                own_steps = [(ensembles[1], [("E_IN", "E_IN")], [(last, last)])]
            for model_name, input_map, output_map in own_steps:
                step = config.ensemble_scheduling.step.add()
                step.model_name = model_name
                if rng.random() < 0.4:
                    step.model_version = rng.choice((-1, -1, 1, 2))
                for key, value in input_map:
                    step.input_map[key] = value
                for key, value in output_map:
                    step.output_map[key] = value
            notes.extend(self._break_ensemble(rng, config, base, name))
            models[name] = self._files(rng, name, config, "ensemble")
        origin = f"random #{base[1:]} (ensemble of {len(steps)})"
        return Group(origin + (f"; {', '.join(notes)}" if notes else ""), models)

    def _break_ensemble(
        self, rng: random.Random, config: ModelConfig, base: str, name: str
    ) -> list[str]:
        scheduling = config.ensemble_scheduling
        step = scheduling.step[rng.randrange(len(scheduling.step))]
        if rng.random() > 0.45:
            return []
        choice = rng.choice(
            (
                "missing_model", "self_reference", "no_input_map", "no_output_map",
                "unused_input", "duplicate_output", "dtype", "no_steps", "instance_group",
                "walker", "cycle",
            )
        )  # fmt: skip
        if choice == "missing_model":
            step.model_name = f"{base}_missing"
        elif choice == "self_reference":
            step.model_name = name
        elif choice == "cycle" and name != base:
            step.model_name = base  # base -> inner -> base: both are cycle members
        elif choice == "no_input_map":
            step.ClearField("input_map")
        elif choice == "no_output_map":
            step.ClearField("output_map")
        elif choice == "unused_input":
            config.input.add(name="E_UNUSED", data_type=config.input[0].data_type, dims=[1])
        elif choice == "duplicate_output":
            extra = scheduling.step.add()
            extra.CopyFrom(step)
        elif choice == "dtype":
            set_enum(config.output[0], "data_type", "TYPE_BOOL")
        elif choice == "no_steps":
            scheduling.ClearField("step")
        elif choice == "instance_group":
            config.instance_group.add(count=1)
        else:
            return [
                f"{name}: " + Walker(rng, ["E_IN", "E_T0", "IN", "OUT"], [base]).perturb(config)
            ]
        return [f"{name}: {choice}"]


def random_groups(seed: int, count: int) -> list[Group]:
    """``count`` random groups (about 1.2 models each), deterministic in ``seed``."""
    generator = RandomModels(seed)
    return [generator.group(index) for index in range(count)]


# =========================================================================== mutations


@dataclass(frozen=True)
class Source:
    """A repository to mutate: a fixture case or the example repository."""

    label: str
    path: Path


def sources() -> list[Source]:
    found = [Source(case.id, case.path) for case in all_cases() if "crash" not in case.name]
    if EXAMPLES.is_dir():
        found.append(Source("examples", EXAMPLES))
    return found


def read_models(root: Path) -> dict[str, Files]:
    """The model folders of a repository as data (symlinked folders and FIFOs left out)."""
    models: dict[str, Files] = {}
    for folder in sorted(root.iterdir()):
        if not folder.is_dir() or folder.is_symlink():
            continue
        files: Files = {}
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink():
                continue
            if path.is_dir():
                if not any(path.iterdir()):
                    files[relative + "/"] = b""
            elif path.is_file():
                files[relative] = path.read_bytes()
        models[folder.name] = files
    return models


def fresh_name(prefix: str, name: str) -> str:
    """A unique folder name that keeps what the old one tested (leading dot, tool names)."""
    if name in STRAY_NAMES:
        return name
    if name.startswith("."):
        return f".{prefix}{name[1:]}"
    return f"{prefix}{name}"


def rename_references(text: str, old: str, new: str, renamed: Mapping[str, str]) -> str:
    """Point the top-level ``name`` (when it was the folder's) and every ``model_name``
    that names a sibling at the new folder names."""
    tokens = [t for t in tokenize(text) if t.kind is not TokenKind.COMMENT]
    edits: list[tuple[Token, str]] = []
    depth = 0
    for index, token in enumerate(tokens):
        if token.kind is TokenKind.SYMBOL and token.text in "{<":
            depth += 1
        elif token.kind is TokenKind.SYMBOL and token.text in "}>":
            depth -= 1
        elif token.kind is TokenKind.IDENTIFIER and token.text in ("name", "model_name"):
            following = tokens[index + 1 : index + 3]
            value = next((t for t in following if t.kind is TokenKind.STRING), None)
            if value is None or len(value.text) < 2:
                continue
            current = value.text[1:-1]
            if token.text == "name" and depth == 0 and current == old:
                edits.append((value, json.dumps(new)))
            elif token.text == "model_name" and current in renamed:
                edits.append((value, json.dumps(renamed[current])))
    for token, replacement in reversed(edits):
        text = text[: token.start] + replacement + text[token.end :]
    return text


TextMutation = Callable[[random.Random, str], "str | None"]


def _tokens(text: str) -> list[Token]:
    return [t for t in tokenize(text) if t.kind not in (TokenKind.COMMENT, TokenKind.EOF)]


def _replace(text: str, token: Token, replacement: str) -> str:
    return text[: token.start] + replacement + text[token.end :]


def _all_fields(fields: Iterable[Field]) -> Iterator[Field]:
    for item in fields:
        yield item
        value = item.value
        if isinstance(value, Block):
            yield from _all_fields(value.fields)
        elif isinstance(value, ListValue):
            for element in value.items:
                if isinstance(element, Block):
                    yield from _all_fields(element.fields)


def _field_text_range(item: Field) -> tuple[int, int]:
    return item.first.start, item.last.end


def mutate_dtype(rng: random.Random, text: str) -> str | None:
    candidates = [t for t in _tokens(text) if re.fullmatch(r"TYPE_\w+", t.text)]
    if not candidates:
        return None
    words = [*DATA_TYPES, *BAD_TYPE_WORDS, '"TYPE_FP32"', "11", "42"]
    return _replace(text, rng.choice(candidates), rng.choice(words))


def mutate_dims(rng: random.Random, text: str) -> str | None:
    lists = [
        item.value
        for item in _all_fields(parse_tree(text).fields)
        if item.name.text in ("dims", "shape") and isinstance(item.value, ListValue)
    ]
    if not lists:
        return None
    value = rng.choice(lists)
    if value.close is None:
        return None
    numbers = [item.text for item in value.items if not isinstance(item, Block)]
    action = rng.choice(("add", "drop", "drop", "change"))
    if action == "add":
        numbers.insert(rng.randint(0, len(numbers)), str(rng.choice(SMALL_DIMS)))
    elif numbers and action == "drop":
        del numbers[rng.randrange(len(numbers))]
    elif numbers:
        numbers[rng.randrange(len(numbers))] = rng.choice(("0", "-2", "-1", "1.5", '"3"', "x"))
    return text[: value.open.start] + f"[ {', '.join(numbers)} ]" + text[value.close.end :]


def mutate_swap_names(rng: random.Random, text: str) -> str | None:
    strings = [t for t in _tokens(text) if t.kind is TokenKind.STRING]
    if len(strings) < 2:
        return None
    first, second = sorted(rng.sample(strings, 2), key=lambda t: t.start)
    if rng.random() < 0.5:  # make them equal instead: a duplicated name
        return _replace(text, second, first.text)
    return (
        text[: first.start]
        + second.text
        + text[first.end : second.start]
        + first.text
        + text[second.end :]
    )


def mutate_remove_field(rng: random.Random, text: str) -> str | None:
    fields = list(_all_fields(parse_tree(text).fields))
    if not fields:
        return None
    start, end = _field_text_range(rng.choice(fields))
    return text[:start] + text[end:]


def mutate_duplicate_block(rng: random.Random, text: str) -> str | None:
    fields = list(_all_fields(parse_tree(text).fields))
    blocks = [f for f in fields if isinstance(f.value, Block | ListValue)] or fields
    if not blocks:
        return None
    start, end = _field_text_range(rng.choice(blocks))
    return text[:end] + "\n" + text[start:end] + text[end:]


def mutate_break_map(rng: random.Random, text: str) -> str | None:
    entries = [
        item
        for item in _all_fields(parse_tree(text).fields)
        if isinstance(item.value, Block)
        and {f.name.text for f in item.value.fields} >= {"key", "value"}
    ]
    if not entries:
        return None
    entry = rng.choice(entries)
    assert isinstance(entry.value, Block)
    action = rng.choice(("drop_key", "drop_value", "duplicate", "scalar_value", "list_key"))
    inner = {f.name.text: f for f in entry.value.fields}
    if action in ("drop_key", "drop_value"):
        start, end = _field_text_range(inner[action.removeprefix("drop_")])
        return text[:start] + text[end:]
    if action == "duplicate":
        start, end = _field_text_range(entry)
        return text[:end] + " " + text[start:end] + text[end:]
    target = inner["value" if action == "scalar_value" else "key"]
    start, end = _field_text_range(target)
    replacement = 'value: "v"' if action == "scalar_value" else 'key: [ "a", "b" ]'
    return text[:start] + replacement + text[end:]


def mutate_typo(rng: random.Random, text: str) -> str | None:
    identifiers = [t for t in _tokens(text) if t.kind is TokenKind.IDENTIFIER]
    if not identifiers:
        return None
    token = rng.choice(identifiers)
    word = token.text
    position = rng.randrange(len(word))
    action = rng.choice(("drop", "double", "swap", "case", "plural"))
    if action == "drop" and len(word) > 1:
        word = word[:position] + word[position + 1 :]
    elif action == "double":
        word = word[: position + 1] + word[position:]
    elif action == "swap" and position + 1 < len(word):
        word = word[:position] + word[position + 1] + word[position] + word[position + 2 :]
    elif action == "case":
        word = word.swapcase()
    else:
        word = word[:-1] if word.endswith("s") else word + "s"
    return _replace(text, token, word)


def mutate_delete_symbol(rng: random.Random, text: str) -> str | None:
    symbols = [t for t in _tokens(text) if t.kind is TokenKind.SYMBOL]
    if not symbols:
        return None
    return _replace(text, rng.choice(symbols), "")


def mutate_number(rng: random.Random, text: str) -> str | None:
    numbers = [t for t in _tokens(text) if t.kind is TokenKind.NUMBER]
    if not numbers:
        return None
    words = ("0", "-1", "-2", "1", "2", "8", "1.5", "4294967296", "-0", "0x10", '"8"', "1e3")
    return _replace(text, rng.choice(numbers), rng.choice(words))


LEXICAL_NUMBERS = ("+1", "- 1", "-\n1", "1_0", "0x1", "01", "013", "-0", "1.", "inff", "0.5ff")
LEXICAL_STRINGS = ("\\q", "\\e", "\\777", "\\ud800", "\\xff", "\x00", "\\8", "\u00a0")


def mutate_lexical(rng: random.Random, text: str) -> str | None:
    """Spellings where protobuf's C++ and python text parsers may disagree."""
    tokens = [t for t in _tokens(text) if t.kind in (TokenKind.NUMBER, TokenKind.STRING)]
    if not tokens:
        return None
    token = rng.choice(tokens)
    if token.kind is TokenKind.NUMBER:
        return _replace(text, token, rng.choice(LEXICAL_NUMBERS))
    if rng.random() < 0.2:  # a non-breaking space where a space was
        return text[: token.start] + "\u00a0" + text[token.start :]
    inner = token.text[1:-1]
    spot = rng.randint(0, len(inner))
    escaped = inner[:spot] + rng.choice(LEXICAL_STRINGS) + inner[spot:]
    return _replace(text, token, token.text[0] + escaped + token.text[0])


TEXT_MUTATIONS: dict[str, TextMutation] = {
    "lexical edge case": mutate_lexical,
    "change a data type": mutate_dtype,
    "add, drop or change a dim": mutate_dims,
    "swap two names": mutate_swap_names,
    "remove a field": mutate_remove_field,
    "duplicate a block": mutate_duplicate_block,
    "break a map entry": mutate_break_map,
    "typo a field or enum": mutate_typo,
    "delete a symbol": mutate_delete_symbol,
    "change a number": mutate_number,
}


def mutate_config(rng: random.Random, text: str, siblings: Sequence[str]) -> tuple[str, str]:
    """One mutation of a config's text; returns (new text, what was done)."""
    config = ModelConfig()
    try:
        text_format.Parse(text, config)
    except (text_format.ParseError, ValueError, TypeError, RecursionError):
        parsed = False
    else:
        parsed = True
    if parsed and rng.random() < 0.35:
        tensors = [t.name for t in config.input] + [t.name for t in config.output]
        walker = Walker(rng, tensors, siblings)
        done = walker.perturb(config)
        return text_format.MessageToString(config), f"message edit: {done}"
    names = list(TEXT_MUTATIONS)
    rng.shuffle(names)
    for name in names:
        result = TEXT_MUTATIONS[name](rng, text)
        if result is not None and result != text:
            return result, name
    return text + "\nmax_batch_size: 1\n", "append a field"


def mutation_groups(seed: int, per_config: int) -> list[Group]:
    """``per_config`` mutated copies of each fixture case and example repository, one per
    config file they hold; deterministic in ``seed``."""
    groups: list[Group] = []
    for number, source in enumerate(sources()):
        models = read_models(source.path)
        with_config = [name for name, files in models.items() if CONFIG in files]
        for target in with_config:
            for copy in range(per_config):
                rng = random.Random(f"{seed}:mutation:{source.label}:{target}:{copy}")
                prefix = f"c{number}x{with_config.index(target)}x{copy}_"
                renamed = {name: fresh_name(prefix, name) for name in models}
                copies: dict[str, Files] = {}
                note = ""
                for name, files in models.items():
                    files = dict(files)
                    if CONFIG in files:
                        text = files[CONFIG].decode("utf-8", "surrogateescape")
                        text = rename_references(text, name, renamed[name], renamed)
                        if name == target:
                            text, note = mutate_config(rng, text, list(renamed.values()))
                        files[CONFIG] = text.encode("utf-8", "surrogateescape")
                    copies[renamed[name]] = files
                origin = f"mutation of {source.label}/{target}: {note}"
                groups.append(Group(origin, copies, focus=renamed[target]))
    return groups


# =========================================================================== known crashes


def _parse(text: str | None) -> ModelConfig | None:
    if text is None:
        return None
    config = ModelConfig()
    try:
        text_format.Parse(text, config)
    except (text_format.ParseError, ValueError, TypeError, RecursionError):
        return None
    return config


def crash_reasons(groups: Sequence[Group]) -> dict[int, str]:
    """Groups (by index) that would crash tritonserver 2.51 in a shared repository."""
    reasons: dict[int, str] = {}
    owner: dict[str, int] = {}
    steps: dict[str, set[str]] = {}
    for index, group in enumerate(groups):
        for name in group.models:
            owner[name] = index
            config = _parse(group.config_text(name))
            if config is None:
                continue
            if (
                config.HasField("model_repository_agents")
                and not config.model_repository_agents.agents
            ):
                reasons[index] = f"{name}: empty model_repository_agents block (SIGSEGV)"
            if config.HasField("ensemble_scheduling"):
                steps[name] = {step.model_name for step in config.ensemble_scheduling.step}
    reach = {name: _reachable(name, steps) for name in steps}
    for name, reached in reach.items():
        cyclic = [other for other in reached if other in reach and other in reach[other]]
        outside = [other for other in cyclic if name not in reach[other]]
        if outside:
            reasons.setdefault(
                owner[name], f"{name}: depends on the ensemble cycle through {outside[0]} (SIGSEGV)"
            )
    return reasons


def _reachable(start: str, steps: Mapping[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(steps.get(start, ()))
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(steps.get(name, ()))
    return seen


# =========================================================================== judging

Kind = Literal["agree", "passed_poll", "skipped", "missed", "false_alarm", "internal_error"]
DISAGREEMENTS: tuple[Kind, ...] = ("missed", "false_alarm", "internal_error")
AFTER_DEPENDENCIES = frozenset({"PL107", "PL516"})
"""Poll-stage rules Triton applies to an ensemble only once its composing models have
loaded (``CheckNode`` first, then version selection): never reached here, where no
model loads, so an ensemble Triton stopped at a composing model says nothing on them."""
PARSE_FAILED = "failed to read text proto"


@dataclass(frozen=True)
class Outcome:
    """Both verdicts on one model."""

    model: str
    group: Group
    verdict: Verdict
    diagnostics: tuple[Diagnostic, ...]
    kind: Kind
    note: str = ""
    """Why it was skipped, or the internal error."""
    cause: str = ""
    """For a disagreement that is not a root cause: ``parser`` (protobuf's python and
    C++ parsers disagree on this text) or the composing model whose disagreement made
    this ensemble's."""

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    @property
    def is_disagreement(self) -> bool:
        return self.kind in DISAGREEMENTS


def classify(verdict: Verdict, errors: Sequence[Diagnostic]) -> Kind:
    """The rule: rejected needs one of our errors; passing poll allows no parse/poll error.

    What "passing poll" covers depends on where Triton stopped: at a missing repository
    agent (stage ``poll``) only parsing had run; at an ensemble's composing model
    (stage ``ensemble``) everything but ``AFTER_DEPENDENCIES``.
    """
    codes = [d.code for d in errors]
    if verdict.status == "rejected":
        return "agree" if codes else "missed"
    if verdict.status in ("backend_missing", "ready"):
        judged = set(POLL_STAGES)
        if verdict.status == "ready":
            judged.add(Stage.LOAD)
        elif verdict.stage == "poll":
            judged = {Stage.PARSE}
        checked = [
            code
            for code in codes
            if RULES_BY_CODE[code].stage in judged
            and not (verdict.stage == "ensemble" and code in AFTER_DEPENDENCIES)
        ]
        return "false_alarm" if checked else "passed_poll"
    return "skipped"


def ensemble_steps(groups: Iterable[Group]) -> dict[str, list[str]]:
    """Ensemble name -> the models its steps name, for every ensemble that parses."""
    steps: dict[str, list[str]] = {}
    for group in groups:
        for name in group.models:
            config = _parse(group.config_text(name))
            if config is not None and config.platform == "ensemble":
                steps[name] = [step.model_name for step in config.ensemble_scheduling.step]
    return steps


def effective_verdicts(
    steps: Mapping[str, Sequence[str]], verdicts: Mapping[str, Verdict]
) -> dict[str, Verdict]:
    """Triton's verdicts, with ensembles that depend on a rejected model rejected.

    ``CheckNode`` stops at the first failing composing model, in no fixed order; here
    every composing model fails (no backend), so an ensemble may blame one that is
    merely undecided while another is rejected. It can never load either way.
    """
    result = dict(verdicts)
    resolving: set[str] = set()

    def resolve(name: str) -> Verdict:
        verdict = result[name]
        if verdict.status == "rejected" or verdict.stage != "ensemble" or name in resolving:
            return verdict
        resolving.add(name)
        for upstream in steps.get(name, ()):
            if upstream in result and resolve(upstream).status == "rejected":
                message = f"{verdict.message} [and '{upstream}', which it uses, is rejected]"
                result[name] = Verdict(name, "rejected", message, "ensemble", upstream=upstream)
                break
        resolving.discard(name)
        return result[name]

    for name in steps:
        if name in result:
            resolve(name)
    return result


def parser_mismatch(outcome: Outcome) -> bool:
    """Triton's parser and ours disagree on whether this model's config parses."""
    text = outcome.group.models[outcome.model].get(CONFIG)
    if text is None or (not outcome.verdict.decided and outcome.verdict.stage == ""):
        return False
    triton_failed = PARSE_FAILED in outcome.verdict.message
    return triton_failed != (parse_config(text).config is None)


def find_causes(outcomes: Sequence[Outcome], steps: Mapping[str, Sequence[str]]) -> list[Outcome]:
    """Mark disagreements that follow from another one: a parser mismatch, or an
    ensemble whose composing model is itself a disagreement."""
    marked = [
        replace(o, cause="parser") if o.is_disagreement and parser_mismatch(o) else o
        for o in outcomes
    ]
    by_model = {o.model: o for o in marked}
    for index, outcome in enumerate(marked):
        if not outcome.is_disagreement or outcome.cause:
            continue
        for upstream in _reachable(outcome.model, {k: set(v) for k, v in steps.items()}):
            other = by_model.get(upstream)
            if other is not None and other.is_disagreement:
                marked[index] = replace(outcome, cause=upstream)
                break
    return marked


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)
    quarantined: list[tuple[Group, str]] = field(default_factory=list)
    """Groups kept out because they would crash tritonserver (known crashes)."""
    new_crashes: list[tuple[Group, str]] = field(default_factory=list)
    """Groups that crashed tritonserver although no known crash applies."""
    lint_crashes: list[tuple[Group, str]] = field(default_factory=list)
    """Groups on which ``lint()`` raised."""
    triton_runs: int = 0
    triton_seconds: float = 0.0
    lint_seconds: float = 0.0

    @property
    def disagreements(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.is_disagreement]

    @property
    def root_disagreements(self) -> list[Outcome]:
        """Disagreements that do not follow from another one (see ``Outcome.cause``)."""
        return [o for o in self.disagreements if not o.cause]

    def counts(self) -> Counter[str]:
        return Counter(o.kind for o in self.outcomes)


class Judge:
    """Writes batches as repositories and collects both verdicts on every model."""

    def __init__(self, server: TritonServer, scratch: Path, timeout: float = 120) -> None:
        self.server = server
        self.scratch = scratch
        self.timeout = timeout
        self.runs = 0

    def judge(self, groups: Sequence[Group], report: Report, batch_size: int = 100) -> None:
        reasons = crash_reasons(groups)
        kept = []
        for index, group in enumerate(groups):
            if index in reasons:
                report.quarantined.append((group, reasons[index]))
            else:
                kept.append(group)
        for batch in pack(kept, batch_size):
            self._judge_batch(batch, report)

    def _judge_batch(self, groups: Sequence[Group], report: Report) -> None:
        """One tritonserver run and one lint of a repository of ``groups``; on a crash
        of either, the halves are judged apart until the culprit is alone."""
        self.runs += 1
        repository = self.scratch / f"repo{self.runs}"
        write_repository(repository, groups)
        lint_error = ""
        try:
            run = self.server.run(repository, auto_complete=False, timeout=self.timeout)
            report.triton_runs += 1
            report.triton_seconds += run.elapsed
            start = time.monotonic()
            try:
                result = lint([repository], SETTINGS)
            except Exception as error:  # a bug in pbtxt-lint; the bisection finds where
                lint_error = repr(error)
            report.lint_seconds += time.monotonic() - start
        finally:
            shutil.rmtree(repository, ignore_errors=True)
        if lint_error or not run.completed:
            if len(groups) > 1:
                middle = len(groups) // 2
                self._judge_batch(groups[:middle], report)
                self._judge_batch(groups[middle:], report)
            elif lint_error:
                report.lint_crashes.append((groups[0], lint_error))
            else:
                why = next(iter(run.verdicts.values())).message if run.verdicts else ""
                report.new_crashes.append((groups[0], why or "tritonserver died"))
            return
        by_model: dict[str, list[Diagnostic]] = {}
        for diagnostic in result.diagnostics:
            by_model.setdefault(diagnostic.model or "", []).append(diagnostic)
        internal = {error.model: f"{error.rule}: {error.error}" for error in result.internal_errors}
        steps = ensemble_steps(groups)
        verdicts = effective_verdicts(steps, run.verdicts)
        outcomes = []
        for group in groups:
            for model in group.models:
                verdict = verdicts[model]
                diagnostics = tuple(by_model.get(model, ()))
                errors = [d for d in diagnostics if d.severity is Severity.ERROR]
                kind = classify(verdict, errors)
                note: str = verdict.status if kind == "skipped" else ""
                if model in internal:
                    kind, note = "internal_error", internal[model]
                outcomes.append(Outcome(model, group, verdict, diagnostics, kind, note))
        report.outcomes.extend(find_causes(outcomes, steps))


def pack(groups: Sequence[Group], batch_size: int) -> Iterator[list[Group]]:
    """Batches of about ``batch_size`` models with no folder name twice."""
    pending = list(groups)
    while pending:
        batch: list[Group] = []
        names: set[str] = set()
        left: list[Group] = []
        size = 0
        for group in pending:
            if size >= batch_size or names & group.models.keys():
                left.append(group)
                continue
            batch.append(group)
            names |= group.models.keys()
            size += len(group.models)
        yield batch
        pending = left


def write_repository(repository: Path, groups: Iterable[Group]) -> None:
    repository.mkdir(parents=True)
    for group in groups:
        for model, files in group.models.items():
            folder = repository / model
            folder.mkdir()
            for relative, content in files.items():
                path = folder / relative
                if relative.endswith("/"):
                    path.mkdir(parents=True, exist_ok=True)
                    continue
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)


def run_differential(
    server: TritonServer,
    groups: Sequence[Group],
    *,
    batch_size: int = 100,
    scratch: Path | None = None,
) -> Report:
    """Judge ``groups`` with tritonserver and pbtxt-lint; every model gets an Outcome."""
    report = Report()
    with tempfile.TemporaryDirectory(prefix="pbtxt-lint-diff-", dir=scratch) as folder:
        Judge(server, Path(folder)).judge(groups, report, batch_size)
    return report


# =========================================================================== reporting

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"-?\b\d+\b")
_POSITION = re.compile(r"^\d+:\d+: ")


def signature(outcome: Outcome) -> str:
    """What a disagreement is about, without names and numbers (to group them)."""
    if outcome.cause == "parser":
        return f"{outcome.kind}: python and C++ protobuf parse this differently"
    if outcome.cause:
        return f"{outcome.kind}: follows from a disagreement on a composing model"
    if outcome.kind == "missed":
        verdict = outcome.verdict
        message = verdict.message
        if PARSE_FAILED in message and verdict.detail:
            message = "protobuf: " + _POSITION.sub("", verdict.detail.splitlines()[0])
        for model in outcome.group.models:
            message = re.sub(rf"\b{re.escape(model)}\b", "<model>", message)
        return "missed: " + _NUMBER.sub("N", _QUOTED.sub("'…'", message))
    if outcome.kind == "false_alarm":
        codes = sorted({d.code for d in outcome.errors})
        return f"false alarm: {', '.join(codes)}"
    return f"{outcome.kind}: {outcome.note.split(':')[0]}"


def _printable(line: str) -> str:
    """Control characters and odd spaces made visible (a NUL would make logs binary)."""
    return "".join(
        char
        if char.isprintable() or char == "\t"
        else f"\\x{ord(char):02x}"
        if ord(char) < 0x100
        else f"\\u{ord(char):04x}"
        for char in line
    )


def describe(outcome: Outcome) -> str:
    """Both verdicts and the config(s), for a human."""
    verdict = outcome.verdict
    lines = [
        f"DISAGREEMENT ({outcome.kind}) on model '{outcome.model}' [{outcome.group.origin}]",
        f"  tritonserver: {verdict.status} ({verdict.stage or '-'}): {verdict.message}",
    ]
    lines.extend(f"    protobuf: {line}" for line in verdict.detail.splitlines())
    if outcome.note:
        lines.append(f"  note: {outcome.note}")
    if outcome.cause:
        lines.append(f"  cause: {outcome.cause}")
    for diagnostic in outcome.diagnostics:
        where = f"{diagnostic.span.line}:{diagnostic.span.column}" if diagnostic.span else "-"
        lines.append(
            f"  pbtxt-lint: {diagnostic.code} {diagnostic.severity.value} at {where}: "
            f"{diagnostic.message}"
        )
    if not outcome.diagnostics:
        lines.append("  pbtxt-lint: nothing")
    return "\n".join([*map(_printable, lines), _configs(outcome.group, outcome.model)])


def _configs(group: Group, current: str = "") -> str:
    lines = []
    for model in group.models:
        text = group.config_text(model)
        marker = " (this model)" if model == current else ""
        lines.append(f"  {model}/config.pbtxt{marker}:" + (" (none)" if text is None else ""))
        lines.extend(f"    | {line}" for line in (text or "").splitlines())
    return "\n".join(_printable(line) for line in lines)


def summary(report: Report) -> str:
    counts = report.counts()
    skips = Counter(o.note for o in report.outcomes if o.kind == "skipped")
    causes = Counter(
        "parser" if o.cause == "parser" else "composing" for o in report.disagreements if o.cause
    )
    lines = [
        f"{len(report.outcomes)} models judged in {report.triton_runs} tritonserver runs "
        f"(tritonserver {report.triton_seconds:.1f}s, pbtxt-lint {report.lint_seconds:.1f}s)",
        f"  agree (Triton rejects, pbtxt-lint errors): {counts['agree']}",
        f"  passed Triton's poll checks, no parse/poll error from us: {counts['passed_poll']}",
        f"  skipped: {counts['skipped']} {dict(skips)}",
        f"  kept out (known tritonserver crashes): {len(report.quarantined)} groups",
        f"  DISAGREEMENTS: {len(report.disagreements)} "
        f"(missed {counts['missed']}, false alarms {counts['false_alarm']}, "
        f"internal errors {counts['internal_error']}); not root causes: {dict(causes)}",
        f"  new tritonserver crashes: {len(report.new_crashes)}, "
        f"pbtxt-lint exceptions: {len(report.lint_crashes)}",
    ]
    kinds = Counter(signature(o) for o in report.disagreements)
    if kinds:
        lines.append("  disagreements by kind:")
        lines.extend(f"    {count:4d}  {kind}" for kind, count in kinds.most_common())
    return "\n".join(lines)


def full_report(report: Report, limit: int | None = None) -> str:
    """Every disagreement (or the first ``limit`` of each kind), crashes, then the summary."""
    parts: list[str] = []
    shown: Counter[str] = Counter()
    for outcome in report.disagreements:
        kind = signature(outcome)
        shown[kind] += 1
        if limit is None or shown[kind] <= limit:
            parts.append(describe(outcome))
    for group, why in report.new_crashes:
        parts.append(f"NEW TRITONSERVER CRASH [{group.origin}]: {why}\n" + _configs(group))
    for group, why in report.lint_crashes:
        parts.append(f"PBTXT-LINT RAISED [{group.origin}]: {why}\n" + _configs(group))
    parts.append(summary(report))
    return "\n\n".join(parts)
