"""Configuration files: discovery, precedence, every key, and clear errors for mistakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli import GOOD, make_model

from pbtxt_lint.cli import cli
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.settings import PathIgnore, Settings
from pbtxt_lint.settings_files import Options, SettingsError, find_settings_file, resolve_settings
from pbtxt_lint.targets import resolve

RENAMED = GOOD.replace('name: "m"', 'name: "x"')  # PL103, an error


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def codes(*args: str) -> list[tuple[str, str]]:
    code, output, errors = run("check", *args, "--format", "json")
    assert code in (0, 1), errors
    return [(d["code"], d["severity"]) for d in json.loads(output)["diagnostics"]]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project with a model repository `models/` holding one misnamed model."""
    (tmp_path / ".git").mkdir()
    make_model(tmp_path / "models", "m", RENAMED)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_discovery_walks_up_and_stops_at_git(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    inner = outer / "project" / "models" / "m"
    inner.mkdir(parents=True)
    (outer / ".pbtxt-lint.toml").write_text("")
    assert find_settings_file(inner) == outer / ".pbtxt-lint.toml"
    (outer / "project" / ".git").mkdir()
    assert find_settings_file(inner) is None, "the search stops at the repository root"
    (outer / "project" / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    assert find_settings_file(inner) is None, "a pyproject.toml without our table is skipped"
    (outer / "project" / "pyproject.toml").write_text("[tool.pbtxt-lint]\ngpus = 1\n")
    assert find_settings_file(inner) == outer / "project" / "pyproject.toml"
    (outer / "project" / ".pbtxt-lint.toml").write_text("gpus = 2\n")
    assert find_settings_file(inner) == outer / "project" / ".pbtxt-lint.toml"
    assert find_settings_file(inner / "config.pbtxt") == outer / "project" / ".pbtxt-lint.toml"


def test_every_key_reaches_the_settings(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        """
[tool.pbtxt-lint]
select = ["PL1", "PL0"]
ignore = ["PL108"]
extend-select = ["PL2"]
per-path-ignores = { "legacy/**" = ["name-mismatch"] }
severity = { PL103 = "warning" }
disable-auto-complete-config = true
model-config-name = "prod"
gpus = 2
triton-version = "24.10"
config-only = true
container = "vllm-python-py3"
backends = ["fastertransformer", "glmbackend"]
"""
    )
    (group,) = resolve_settings([project / "models"], Options())
    assert group.settings_file == project / "pyproject.toml"
    assert group.settings == Settings(
        auto_complete=False,
        model_config_name="prod",
        config_only=True,
        gpus=2,
        select=frozenset({"PL1", "PL0"}),
        ignore=frozenset({"PL108"}),
        extend_select=frozenset({"PL2"}),
        per_path_ignores=(PathIgnore("legacy/**", frozenset({"PL103"}), project),),
        severity=(("PL103", Severity.WARNING),),
        target=resolve("2.51").release,
        container="vllm-python-py3",
        backends=frozenset({"fastertransformer", "glmbackend"}),
    )


def test_command_line_overrides_the_file(project: Path) -> None:
    (project / ".pbtxt-lint.toml").write_text(
        'select = ["PL0"]\nignore = ["PL108"]\ngpus = 1\nconfig-only = true\n'
    )
    assert codes("models") == []
    assert codes("models", "--select", "PL1") == [("PL103", "error")]
    options = Options(select=("PL1",), ignore=("PL109",), gpus=3)
    (group,) = resolve_settings([project / "models"], options)
    assert group.settings.select == {"PL1"}, "--select replaces the file's select"
    assert group.settings.ignore == {"PL108", "PL109"}, "--ignore adds to the file's"
    assert group.settings.gpus == 3
    assert group.settings.config_only is True, "what the command line leaves alone stays"
    assert group.origins["ignore"].source.endswith("+ command line")
    assert group.origins["gpus"].source == "command line"
    assert group.origins["config-only"].source == str(project / ".pbtxt-lint.toml")
    assert group.origins["model-config-name"].source == "default"


def test_selection_by_specificity() -> None:
    settings = Settings(select=frozenset({"PL1"}), ignore=frozenset({"PL103"}))
    assert settings.wants("PL101") and not settings.wants("PL103")
    assert not settings.wants("PL201")
    settings = Settings(ignore=frozenset({"PL1"}), extend_select=frozenset({"PL103"}))
    assert settings.wants("PL103") and not settings.wants("PL101") and settings.wants("PL201")
    assert not Settings(select=frozenset({"PL1"}), ignore=frozenset({"PL1"})).wants("PL101")


def test_per_path_ignores_and_severity(project: Path) -> None:
    make_model(project / "legacy", "m", RENAMED)
    assert codes("models", "legacy") == [("PL103", "error"), ("PL103", "error")]
    (project / ".pbtxt-lint.toml").write_text(
        '[per-path-ignores]\n"legacy/**" = ["PL103"]\n[severity]\nname-mismatch = "info"\n'
    )
    assert codes("models", "legacy") == [("PL103", "info")]
    code, _, _ = run("check", "models", "legacy")
    assert code == 0, "an error downgraded to info does not fail the run"


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("legacy/**", "legacy/m/config.pbtxt", True),
        ("legacy/**", "models/legacy/m/config.pbtxt", False),
        ("**/legacy/*", "models/legacy/m", True),
        ("*.pbtxt", "models/m/configs/prod.pbtxt", True),
        ("models/m", "models/m/config.pbtxt", True),
        ("models/m?", "models/m/config.pbtxt", False),
        ("models/*/config.pbtxt", "models/a/b/config.pbtxt", False),
    ],
)
def test_path_globs(tmp_path: Path, pattern: str, path: str, matches: bool) -> None:
    entry = PathIgnore(pattern, frozenset({"PL1"}), tmp_path)
    assert entry.matches(tmp_path / path) is matches
    assert not entry.matches(tmp_path.parent / "elsewhere" / path)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('selct = ["PL1"]', "unknown key 'selct'; did you mean 'select'?"),
        ('select = ["PL999"]', "select: no rule code or name 'PL999'"),
        ('ignore = ["name-mismatc"]', "did you mean 'name-mismatch'?"),
        ('select = "PL1"', "must be a list of strings"),
        ("gpus = -1", "gpus: must be a whole number >= 0"),
        ("triton-version = 24.10", 'must be a string: triton-version = "24.1"'),
        ('triton-version = "25.07"', "there is no Triton release 25.07"),
        ('triton-version = "2.1"', "older than the oldest release"),
        ('severity = { PL103 = "fatal" }', "severity.PL103: must be one of"),
        ('per-path-ignores = { "a/**" = ["PL99"] }', "per-path-ignores.a/**: no rule code"),
        ("config-only = 1", "config-only: must be true or false"),
        ("select = [", "invalid TOML"),
        ('container = "vllm-py3"', "unknown container 'vllm-py3'; did you mean 'vllm-python-py3'?"),
        ('container = "24.10-py3"', 'write container = "py3" and triton-version = "24.10"'),
        ('container = "py3-min"', "py3-min is the base image Triton is built from"),
        ("container = 3", 'container: must be a string: container = "py3"'),
        ('backends = "vllm"', "backends: must be a list of backend names"),
        (
            'backends = ["onnxruntime_onnx"]',
            "a platform, not a backend; its backend is 'onnxruntime'",
        ),
        ('backends = ["ensemble"]', "'ensemble' is a platform, not a backend"),
        ('backends = ["backends/custom"]', "is not a backend name"),
    ],
)
def test_mistakes_are_usage_errors_naming_file_and_key(
    project: Path, content: str, expected: str
) -> None:
    (project / ".pbtxt-lint.toml").write_text(content + "\n")
    code, output, errors = run("check", "models")
    assert code == 2
    assert output == ""
    assert errors.startswith(f"pbtxt-lint: error: {project / '.pbtxt-lint.toml'}")
    assert expected in errors
    assert "Traceback" not in errors


def test_pyproject_errors_name_the_table(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.pbtxt-lint]\nextend_select = ["PL1"]\n')
    code, _, errors = run("check", "models")
    assert code == 2
    assert "pyproject.toml: tool.pbtxt-lint.extend_select: unknown key" in errors
    assert "did you mean 'extend-select'?" in errors


def test_explicit_config_file(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.toml"
    other.write_text('ignore = ["PL103"]\n')
    assert codes("models", "--config", str(other)) == []
    code, _, errors = run("check", "models", "--config", str(tmp_path / "nope.toml"))
    assert code == 2 and "cannot read" in errors


def test_paths_under_different_configs_use_their_own(project: Path) -> None:
    make_model(project / "other", "m", RENAMED)
    (project / "other" / ".pbtxt-lint.toml").write_text('ignore = ["PL103"]\n')
    groups = resolve_settings([project / "models", project / "other"], Options())
    assert [g.settings_file for g in groups] == [None, project / "other" / ".pbtxt-lint.toml"]
    assert codes("models", "other") == [("PL103", "error")]


def test_show_settings(project: Path) -> None:
    (project / ".pbtxt-lint.toml").write_text('select = ["PL1"]\ntriton-version = "2.51.0"\n')
    code, output, _ = run("check", "models", "--show-settings", "--gpus", "0")
    assert code == 0
    config = project / ".pbtxt-lint.toml"
    assert f"configuration file: {config}" in output
    assert f"select                        PL1  ({config})" in output
    assert "gpus                          0  (command line)" in output
    assert f"triton-version                24.10 (2.51)  ({config})" in output
    assert "config-only                   false  (default)" in output
    assert "Checked" not in output, "--show-settings checks nothing"


def test_cli_errors_have_no_traceback(project: Path) -> None:
    for args in (
        ["--select", "PL999"],
        ["--triton-version", "banana"],
        ["--unsafe-fixes"],
    ):
        code, _, errors = run("check", "models", *args)
        assert code == 2, args
        assert "Traceback" not in errors
    with pytest.raises(SettingsError, match="--triton-version: 'banana' is not a Triton release"):
        resolve_settings([project], Options(triton_version="banana"))


def test_readme_example_is_a_valid_configuration(tmp_path: Path) -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    start = readme.index("# .pbtxt-lint.toml")
    example = readme[start : readme.index("```", start)]
    (tmp_path / ".pbtxt-lint.toml").write_text(example)
    (group,) = resolve_settings([tmp_path], Options())
    assert group.settings.target == resolve("24.10").release
    assert group.settings.severity == (("PL108", Severity.ERROR),)


def test_host_profile_is_unknown_until_declared(project: Path) -> None:
    (group,) = resolve_settings([project / "models"], Options())
    assert group.settings.container is None and group.settings.backends is None
    assert not group.settings.backends_declared
    assert group.origins["container"].source == "default"
    (group,) = resolve_settings([project / "models"], Options(backends=("",)))
    assert group.settings.backends == frozenset(), '--backends "" declares no extra backend'
    assert group.settings.backends_declared
    options = Options(backends=("vllm, stateful", "paddle"), container="py3")
    (group,) = resolve_settings([project / "models"], options)
    assert group.settings.backends == {"vllm", "stateful", "paddle"}
    assert group.settings.container == "py3"


def test_host_profile_decides_backend_findings(project: Path) -> None:
    make_model(
        project / "llm", "m", GOOD.replace('backend: "python"', 'backend: "fastertransformer"')
    )
    assert ("PL113", "info") in codes("llm", "--config-only")
    assert ("PL113", "error") in codes("llm", "--config-only", "--container", "py3")
    assert ("PL113", "error") in codes("llm", "--config-only", "--backends", "vllm")
    found = codes("llm", "--config-only", "--backends", "fastertransformer")
    assert [c for c in found if c[0] == "PL113"] == []


def test_show_settings_lists_what_the_declared_image_ships(project: Path) -> None:
    code, output, _ = run(
        "check",
        "models",
        "--show-settings",
        "--container",
        "vllm-python-py3",
        "--triton-version",
        "24.10",
        "--backends",
        "stateful",
    )
    assert code == 0
    assert (
        "container                     vllm-python-py3: vLLM and Python backends only; " in output
    )
    assert "release 24.10 ships python, vllm  (command line)" in output
    assert "backends                      stateful  (command line)" in output
