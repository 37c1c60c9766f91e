"""The size of each axis the model.py flow follows (artifacts/python_sizes.py and the
sizes each operation gives, artifacts/python_dims.py), and which tensors each response
holds: the facts behind PL657-PL659."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from pbtxt_lint.artifacts import python_sizes as sz
from pbtxt_lint.artifacts.python_flow import analyse_flow
from pbtxt_lint.artifacts.python_model import read_python_model
from pbtxt_lint.artifacts.python_sizes import Size
from pbtxt_lint.artifacts.python_values import Flow, InputFacts

# --- the algebra ---------------------------------------------------------------------------


def request(name: str) -> Size:
    return sz.symbol(f"r:{name}", name)


def test_sums_stay_exact() -> None:
    n = request("n")
    padded = sz.add(n, sz.add(Size(256), n, "", sign=-1), "")
    assert padded is not None and padded.constant == 256
    doubled = sz.multiply(sz.add(n, Size(1), ""), Size(2), "")
    assert doubled is not None and doubled.terms == (("r:n", 2),) and doubled.offset == 2
    assert sz.multiply(n, Size(0), "") == Size(0, (), "")


def test_non_linear_operations_are_opaque() -> None:
    n, m = request("n"), request("m")
    product = sz.multiply(n, m, "n * m")
    assert product is not None and product.from_request and product.constant is None
    again = sz.multiply(n, m, "")
    assert again is not None and again.key == product.key  # the same operation, same sizes
    assert sz.integer_operation("floordiv", Size(7), Size(2), "") == Size(3, (), "")
    assert sz.integer_operation("floordiv", Size(7), Size(0), "") is None
    hidden = sz.opaque("scale", [Size(3), sz.symbol("c:0.5", "")], "")
    assert hidden is not None and not hidden.from_request and hidden.constant is None
    assert sz.extreme("min", [Size(3), Size(5)], "") == Size(3, (), "")
    assert sz.extreme("max", [n, Size(5)], "") is not None
    assert sz.opaque("min", [n, None], "") is None


def test_nested_operations_stay_small() -> None:
    value: Size | None = request("n")
    for _ in range(200):
        value = sz.multiply(value, value, "")
    assert value is not None and len(value.key) < 200
    total: Size | None = Size(0)
    for index in range(20):
        total = sz.add(total, request(str(index)), "")
    assert total is None  # a sum of too many symbols is not followed


@pytest.mark.parametrize(
    ("length", "bounds"),
    [(10, (None, 4, None)), (10, (2, None, None)), (10, (-3, None, None)), (3, (None, 8, None)),
     (9, (1, None, 2)), (9, (None, None, -1))],
)  # fmt: skip
def test_slices_follow_python(length: int, bounds: tuple[int | None, ...]) -> None:
    sizes = [Size(b) if b is not None else None for b in bounds]
    given = tuple(b is not None for b in bounds)
    got = sz.sliced(Size(length), sizes[0], sizes[1], sizes[2], given, "")  # type: ignore[arg-type]
    assert got is not None and got.constant == len(range(length)[slice(*bounds)])


def test_slice_of_a_request_size_depends_on_the_request() -> None:
    got = sz.sliced(request("n"), None, Size(128), None, (False, True, False), "")
    assert got is not None and got.from_request
    assert sz.sliced(request("n"), None, None, None, (False, False, False), "") == request("n")


def test_broadcasting_follows_numpy() -> None:
    a = (Size(4), Size(1), Size(3))
    b = (Size(5), Size(1))
    got = sz.broadcast(a, b)
    assert got is not None
    assert [d.constant if d else None for d in got] == list(np.broadcast_shapes((4, 1, 3), (5, 1)))
    assert sz.broadcast((Size(2),), (Size(3),)) == (None,)  # NumPy raises: unknown
    assert sz.permuted((Size(1), Size(2), Size(3)), [2, 0, 1]) == (Size(3), Size(1), Size(2))
    assert sz.permuted((Size(1), Size(2)), None) == (Size(2), Size(1))
    assert sz.permuted((Size(1), Size(2)), [0, 0]) is None


def test_join_keeps_only_what_both_paths_agree_on() -> None:
    assert sz.join(Size(3, (), "a"), Size(3, (), "b")) == Size(3, (), "a")
    assert sz.join(Size(3), Size(4)) is None
    assert sz.join(request("n"), Size(3)) is None
    assert sz.join_dims((Size(1), Size(2)), (Size(1), Size(3))) == (Size(1), None)


# --- the flow ------------------------------------------------------------------------------


def flow_of(tmp_path: Path, body: str, inputs: dict[str, InputFacts], head: str = "") -> Flow:
    source = (
        "import numpy as np\nimport triton_python_backend_utils as pb_utils\n"
        + textwrap.dedent(head)
        + "\n\nclass TritonPythonModel:\n    def execute(self, requests):\n"
        "        responses = []\n        for request in requests:\n"
        + textwrap.indent(textwrap.dedent(body).strip(), " " * 12)
        + "\n        return responses\n"
    )
    path = tmp_path / "model.py"
    path.write_text(source)
    signature = read_python_model(path, tmp_path)
    flow = analyse_flow(signature.module, inputs, {})
    assert flow.complete
    return flow


def shapes(flow: Flow) -> dict[str, list[object]]:
    """{output: [constant, "B" (batch), "R" (request), "C" (unknown constant), None]}."""
    found: dict[str, list[object]] = {}
    for out in flow.outputs:
        dims = out.value.dims if out.value is not None else None
        found[out.name] = (
            [
                None
                if d is None
                else d.constant
                if d.constant is not None
                else "B"
                if d.is_batch
                else "R"
                if d.from_request
                else "C"
                for d in dims
            ]
            if dims is not None
            else []
        )
    return found


TEXT = InputFacts("object", 2, 1, True, (1,))
IMAGE = InputFacts("uint8", 4, None, True, (-1, -1, 3))


def test_numpy_shapes(tmp_path: Path) -> None:
    found = shapes(
        flow_of(
            tmp_path,
            """
            x = pb_utils.get_input_tensor_by_name(request, "IMAGE").as_numpy()
            image = x[0]
            h, w = image.shape[:2]
            pb_utils.Tensor("zeros", np.zeros((len(x), MAX), dtype=np.float32))
            pb_utils.Tensor("crop", image[:16, 8:, :])
            pb_utils.Tensor("chw", image.transpose(2, 0, 1)[np.newaxis])
            pb_utils.Tensor("flat", image.reshape(-1, 3))
            pb_utils.Tensor("mean", x.mean(axis=(1, 2)))
            pb_utils.Tensor("keep", x.sum(axis=3, keepdims=True))
            pb_utils.Tensor("pad", np.pad(np.ones(5), (2, MAX - 7)))
            pb_utils.Tensor("stack", np.stack([image, image], axis=1))
            pb_utils.Tensor("cat", np.concatenate([np.ones((2, 3)), np.ones((4, 3))]))
            pb_utils.Tensor("matmul", np.ones((h, 4)) @ np.ones((4, 7)))
            pb_utils.Tensor("bcast", np.ones((1, 3)) + np.ones((5, 1)))
            pb_utils.Tensor("range", np.arange(2, MAX))
            pb_utils.Tensor("listed", np.array([[1, 2, 3], [4, 5, 6]]))
            pb_utils.Tensor("expand", np.expand_dims(np.ones(4), -1))
            """,
            {"IMAGE": IMAGE},
            head="MAX = 32",
        )
    )
    assert found == {
        "zeros": ["B", 32],
        "crop": ["R", "R", 3],  # min(height, 16): the request decides
        "chw": [1, 3, "R", "R"],
        "flat": [None, 3],
        "mean": ["B", 3],
        "keep": ["B", "R", "R", 1],
        "pad": [32],
        "stack": ["R", 2, "R", 3],
        "cat": [6, 3],
        "matmul": ["R", 7],
        "bcast": [5, 3],
        "range": [30],
        "listed": [2, 3],
        "expand": [4, 1],
    }


def test_sizes_from_the_request(tmp_path: Path) -> None:
    flow = flow_of(
        tmp_path,
        """
        texts = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
        words = texts[0][0].decode().split()
        tokens = [len(w) for w in words][:LIMIT]
        ids = np.array(tokens + [0] * (LIMIT - len(tokens)))
        pb_utils.Tensor("padded", ids)
        pb_utils.Tensor("words", np.array(words))
        n = int(texts[0][0])
        pb_utils.Tensor("valued", np.zeros((n, 4)))
        dets = np.ones((10, 6))
        pb_utils.Tensor("constant_mask", dets[dets[:, 4] > 0.5])
        pb_utils.Tensor("batch_row", np.zeros((1, len(texts))))
        """,
        {"TEXT": TEXT},
        head="LIMIT = 16",
    )
    found = shapes(flow)
    assert found["padded"] == [16]
    assert found["words"] == ["R"]
    assert found["valued"] == ["R", 4]
    assert found["constant_mask"] == [None, 6]  # a mask of constants: unknown, not the request
    assert found["batch_row"] == [1, "B"]


def test_what_is_not_trusted(tmp_path: Path) -> None:
    flow = flow_of(
        tmp_path,
        """
        global SIZE
        x = pb_utils.get_input_tensor_by_name(request, "IMAGE").as_numpy()
        pb_utils.Tensor("rebound", np.zeros((SIZE, OTHER)))
        pb_utils.Tensor("attr", np.zeros((self.size, 2)))
        pb_utils.Tensor("joined", np.zeros(4) if len(x) else np.zeros(5))
        pb_utils.Tensor("unknown", np.zeros((helper(x), 2)))
        """,
        {"IMAGE": IMAGE},
        head="SIZE = 8\nOTHER = 4\nOTHER = 5",
    )
    found = shapes(flow)
    assert found["rebound"] == []  # no axis known
    assert found["attr"] == [None, 2]
    assert found["joined"] == []  # 4 on one path, 5 on the other
    assert found["unknown"] == [None, 2]


def test_tokenizer_calls(tmp_path: Path) -> None:
    flow = flow_of(
        tmp_path,
        """
        given = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
        texts = [t[0].decode() for t in given]
        fixed = self.tokenizer(texts, padding="max_length", max_length=64, truncation=True,
                               return_tensors="np")
        pb_utils.Tensor("fixed", fixed["input_ids"])
        longest = self.tokenizer(texts, padding=True, return_tensors="np")
        pb_utils.Tensor("longest", longest.attention_mask)
        untruncated = self.tokenizer(texts, padding="max_length", max_length=64,
                                     return_tensors="np")
        pb_utils.Tensor("untruncated", untruncated["input_ids"])
        listed = self.tokenizer(texts, padding="max_length", max_length=64, truncation=True)
        pb_utils.Tensor("listed", np.array(listed["input_ids"], dtype=np.int64))
        torch = self.tokenizer(texts, padding=True, return_tensors="pt")
        pb_utils.Tensor("torch", torch["input_ids"])
        """,
        {"TEXT": TEXT},
    )
    found = shapes(flow)
    assert found["fixed"] == ["B", 64]
    assert found["longest"] == ["B", "R"]
    assert found["untruncated"] == ["B", "R"]
    assert found["listed"] == ["B", 64]
    assert found["torch"] == []
    dtypes = {o.name: o.value.dtype for o in flow.outputs if o.value is not None}
    assert dtypes["fixed"] == "int64"


def test_cv2_resize(tmp_path: Path) -> None:
    flow = flow_of(
        tmp_path,
        """
        image = pb_utils.get_input_tensor_by_name(request, "IMAGE").as_numpy()[0]
        pb_utils.Tensor("fixed", cv2.resize(image, (640, 480)))
        h, w = image.shape[:2]
        pb_utils.Tensor("half", cv2.resize(image, (w // 2, h // 2)))
        pb_utils.Tensor("scaled", cv2.resize(image, (0, 0), fx=0.5, fy=0.5))
        """,
        {"IMAGE": IMAGE},
        head="import cv2",
    )
    assert shapes(flow) == {"fixed": [480, 640, 3], "half": ["R", "R", 3], "scaled": []}


# --- what each response holds --------------------------------------------------------------


def sent(flow: Flow) -> list[tuple[int, frozenset[str], frozenset[str], bool, bool]]:
    return [
        (r.line, r.sent.must, r.sent.may, r.sent.unknown, r.fixed)
        for r in flow.responses
        if r.sent is not None
    ]


def test_responses_hold_what_every_path_sends(tmp_path: Path) -> None:
    flow = flow_of(
        tmp_path,
        """
        dets = pb_utils.get_input_tensor_by_name(request, "DETS").as_numpy()
        outputs = [pb_utils.Tensor("BOXES", dets)]
        if len(dets):
            outputs.append(pb_utils.Tensor("CLASSES", dets))
        if self.with_scores:
            outputs.append(pb_utils.Tensor("SCORES", dets))
        for row in dets:
            outputs.append(pb_utils.Tensor("ROW", row))
        responses.append(pb_utils.InferenceResponse(outputs))
        responses.append(pb_utils.InferenceResponse([pb_utils.Tensor(name, dets)]))
        failed = pb_utils.TritonError("x")
        responses.append(pb_utils.InferenceResponse(output_tensors=[], error=failed))
        """,
        {"DETS": InputFacts("float32", 2, None, False, (-1, 6))},
    )
    both = frozenset({"BOXES"})
    assert sent(flow) == [
        (17, both, frozenset({"BOXES", "CLASSES", "SCORES", "ROW"}), True, False),
        (18, frozenset(), frozenset(), True, False),
    ]
    assert flow.guarded == {"SCORES"}


def test_responses_in_branches(tmp_path: Path) -> None:
    flow = flow_of(
        tmp_path,
        """
        dets = pb_utils.get_input_tensor_by_name(request, "DETS").as_numpy()
        image = pb_utils.get_input_tensor_by_name(request, "IMAGE")
        boxes = pb_utils.Tensor("BOXES", dets)
        if self.mode == "boxes":
            responses.append(pb_utils.InferenceResponse([boxes]))
            continue
        if len(dets) == 0:
            responses.append(pb_utils.InferenceResponse(output_tensors=[boxes]))
            continue
        extra = [boxes]
        if image is not None:
            extra.append(pb_utils.Tensor("IMAGE_OUT", image.as_numpy()))
        if "CLASSES" in request.requested_output_names():
            extra.append(pb_utils.Tensor("CLASSES", dets))
        responses.append(pb_utils.InferenceResponse(extra))
        """,
        {"DETS": InputFacts("float32", 2, None, False, (-1, 6))},
    )
    boxes = frozenset({"BOXES"})
    assert sent(flow) == [
        (13, boxes, boxes, False, True),
        (16, boxes, boxes, False, False),
        (23, boxes, boxes | {"IMAGE_OUT", "CLASSES"}, False, False),
    ]
    assert flow.guarded == {"IMAGE_OUT", "CLASSES"}


def test_hostile_sizes_stay_bounded(tmp_path: Path) -> None:
    growth = "".join("n = n * n + len(words)\n" for _ in range(400))
    body = (
        'text = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()[0][0]\n'
        "words = text.decode().split()\n"
        "n = len(words)\n" + growth + 'pb_utils.Tensor("grown", np.zeros((n, 10**50, '
        'float("inf"), 2**39 * 2**39)))\n'
        'pb_utils.Tensor("sliced", np.ones(2**39)[:: 2**38][-(2**30) :])\n'
    )
    found = shapes(flow_of(tmp_path, body, {"TEXT": TEXT}))
    assert found["grown"][0] == "R" and found["grown"][1:] == [None, None, None]
    assert found["sliced"] == [2]
