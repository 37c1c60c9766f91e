"""`pbtxt-lint schema`: the JSON Schema of ModelConfig, for editors and other validators."""

from __future__ import annotations

import click


@click.command("schema")
def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of Triton's ModelConfig in JSON form.

    Point an editor at it (VS Code `json.schemas`, JetBrains JSON Schema mappings) to
    get completion and checking of config JSON sent to Triton's model-load API.
    """
    import json

    from pbtxt_lint.schema.json_schema import model_config_schema

    click.echo(json.dumps(model_config_schema(), indent=2))
