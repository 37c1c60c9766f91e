"""Hypothesis strategies for config.pbtxt text: valid configs in any legal layout.

Tokens of a small but representative ModelConfig (scalars, enums written as names or
numbers, hex integers, adjacent strings, repeated fields as lists or as repeated
occurrences, `{}` and `<>` blocks, optional colons and separators, maps, a oneof) are
joined with random whitespace, blank lines and comments, so properties such as "the
formatter is idempotent" meet the layouts people actually write.
"""

from __future__ import annotations

from hypothesis import strategies as st

SEPARATORS = [" ", "\n", "  ", "\n\n", "\t", " # note\n", "\n# own line\n", "\n\n# block\n\n"]


@st.composite
def layout(draw: st.DrawFn, tokens: list[str]) -> str:
    """The tokens joined with random whitespace and comments."""
    out = [tokens[0]]
    for token in tokens[1:]:
        out.append(draw(st.sampled_from(SEPARATORS)))
        out.append(token)
    return "".join(out)


names = st.sampled_from(['"a"', '"b"', '"input_ids"', "'x'", '"y" "z"'])
dims = st.lists(st.sampled_from(["1", "-1", "3", "0x10", "224"]), min_size=0, max_size=4)


@st.composite
def repeated_scalars(draw: st.DrawFn, name: str, values: list[str]) -> list[str]:
    if not values or draw(st.booleans()):
        body: list[str] = []
        for index, value in enumerate(values):
            body += ([","] if index else []) + [value]
        return [name, ":", "[", *body, "]"]
    tokens: list[str] = []
    for value in values:
        tokens += [name, ":", value]
    return tokens


@st.composite
def block(draw: st.DrawFn, name: str, fields: list[str]) -> list[str]:
    colon = [":"] if draw(st.booleans()) else []
    opener, closer = draw(st.sampled_from([("{", "}"), ("<", ">")]))
    return [name, *colon, opener, *fields, closer]


@st.composite
def tensor(draw: st.DrawFn) -> list[str]:
    fields = ["name", ":", draw(names)]
    fields += ["data_type", ":", draw(st.sampled_from(["TYPE_FP32", "TYPE_INT64", "11"]))]
    fields += draw(repeated_scalars("dims", draw(dims)))
    if draw(st.booleans()):
        fields += draw(block("reshape", draw(repeated_scalars("shape", draw(dims)))))
    if draw(st.booleans()):
        fields += [draw(st.sampled_from([",", ";"]))]
    return fields


@st.composite
def tensors(draw: st.DrawFn, name: str) -> list[str]:
    items = [draw(tensor()) for _ in range(draw(st.integers(0, 3)))]
    if draw(st.booleans()):
        body: list[str] = []
        for index, item in enumerate(items):
            body += ([","] if index else []) + ["{", *item, "}"]
        return [name, *([":"] if draw(st.booleans()) else []), "[", *body, "]"]
    tokens: list[str] = []
    for item in items:
        tokens += draw(block(name, item))
    return tokens


@st.composite
def configs(draw: st.DrawFn) -> str:
    parts: list[list[str]] = []
    if draw(st.booleans()):
        parts.append(["name", ":", draw(names)])
    if draw(st.booleans()):
        parts.append(["max_batch_size", ":", draw(st.sampled_from(["0", "8", "0x20"]))])
    parts.append(draw(tensors("input")))
    parts.append(draw(tensors("output")))
    if draw(st.booleans()):
        sizes = draw(repeated_scalars("preferred_batch_size", draw(dims)))
        parts.append(draw(block("dynamic_batching", sizes)))
    for key in draw(st.lists(st.sampled_from(['"k"', '"j"']), max_size=2)):
        value = draw(block("value", ["string_value", ":", draw(names)]))
        parts.append(draw(block("parameters", ["key", ":", key, *value])))
    if draw(st.booleans()):
        choice = draw(st.sampled_from(["latest", "all", "specific"]))
        inner = {"latest": ["num_versions", ":", "2"], "all": [], "specific": []}[choice]
        if choice == "specific":
            inner = draw(repeated_scalars("versions", ["1", "3"]))
        parts.append(draw(block("version_policy", draw(block(choice, inner)))))
    order = draw(st.permutations(parts))
    tokens = [token for part in order for token in part]
    if not tokens:
        return ""
    return draw(layout(tokens)) + draw(st.sampled_from(["", "\n", " # last\n"]))
