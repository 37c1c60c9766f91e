"""`pbtxt-lint rules` and `pbtxt-lint explain`: the rule registry for humans."""

from __future__ import annotations

import click


@click.command("rules")
def list_rules() -> None:
    """List every rule: code, severity, name and summary."""
    from pbtxt_lint.rules.registry import ALL_RULES, FAMILIES

    for prefix, title in FAMILIES.items():
        family = [r for r in ALL_RULES if r.code.startswith(prefix)]
        if not family:
            continue
        click.echo(f"{prefix}xx  {title}")
        for r in family:
            click.echo(f"  {r.code}  {r.severity.value:<7}  {r.name:<32} {r.summary}")
        click.echo()


@click.command()
@click.argument("code")
def explain(code: str) -> None:
    """Show the documentation of one rule (by code or name)."""
    from pbtxt_lint.rules.registry import RULES_BY_CODE, RULES_BY_NAME

    found = RULES_BY_CODE.get(code.upper()) or RULES_BY_NAME.get(code)
    if found is None:
        from pbtxt_lint.echo import shorten

        raise click.BadParameter(
            f"no rule '{shorten(code)}'; `pbtxt-lint rules` lists them", param_hint="CODE"
        )
    click.echo(f"{found.code} {found.name} ({found.severity.value})")
    click.echo()
    click.echo(found.summary)
    click.echo()
    if found.doc:
        click.echo(found.doc)
        click.echo()
    if found.triton:
        click.echo(f"Triton reports ({found.stage.value}): {found.triton}")
