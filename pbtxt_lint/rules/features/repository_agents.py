"""PL718-PL719: repository agents.

Triton loads each agent's library (`libtritonrepoagent_<name>.so`) when it polls the
model (`CreateAgentModelListWithLoadAction` in core's
src/model_repository_manager/model_repository_manager.cc).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    WARNING,
    Finding,
    ModelConfig,
    ModelContext,
    Stage,
    model_label,
    rule,
    suggest,
)

SHIPPED_REPO_AGENTS = ("checksum",)
"""Repository agents whose library ships in NGC Triton images (`/opt/tritonserver/repoagents`):
server build.py `enable_all()` builds `all_repoagents = ["checksum"]`."""


@rule(
    "PL718",
    "repository-agent-not-shipped",
    WARNING,
    "A repository agent whose library does not ship with Triton: a misspelt `checksum` "
    "(warning) or one the host must have installed (info).",
    effective=True,
)
def repository_agent_not_shipped(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton loads `libtritonrepoagent_<name>.so` from its repoagents folder when it
    polls the model; NGC images ship only `checksum`. Any other agent must be installed
    on the host, or the model fails: `unable to find 'libtritonrepoagent_<name>.so' for
    repo agent`. A name close to `checksum` is most likely a typo (warning); any other
    is a custom agent, a fact about the host (info).

    Bad:
        model_repository_agents { agents [ { name: "checksums" } ] }
    Good:
        model_repository_agents { agents [ { name: "checksum" parameters { ... } } ] }
    """
    for index, agent in enumerate(config.model_repository_agents.agents):
        if not agent.name or agent.name in SHIPPED_REPO_AGENTS:
            continue
        at = ("model_repository_agents", "agents", index, "name")
        guess = suggest(agent.name, SHIPPED_REPO_AGENTS, cutoff=0.7)
        if guess is not None:
            yield Finding(
                f"repository agent '{agent.name}' of {model_label(context)} does not "
                f"ship with Triton and looks like a misspelling of '{guess}'; unless "
                f"libtritonrepoagent_{agent.name}.so is installed in the repoagents folder, the "
                "model fails to load",
                at=at,
                hint=f'did you mean name: "{guess}"?',
            )
            continue
        yield Finding(
            f"repository agent '{agent.name}' of {model_label(context)} is a custom "
            f"agent: the host must have libtritonrepoagent_{agent.name}.so in its repoagents "
            "folder (Triton images ship only checksum), or the model fails to load",
            at=at,
            hint="nothing to do if the host has it; Triton looks for "
            f"<repoagent-directory>/{agent.name}/libtritonrepoagent_{agent.name}.so "
            "(/opt/tritonserver/repoagents by default)",
            severity=INFO,
        )


@rule(
    "PL719",
    "repository-agent-empty",
    ERROR,
    "An empty `model_repository_agents` block (tritonserver crashes) or an agent without a name.",
    triton="Segmentation fault (tritonserver 2.51, empty block) / unable to find "
    "'libtritonrepoagent_.so' for repo agent '', searched: <paths>",
    stage=Stage.POLL,
    effective=True,
)
def repository_agent_empty(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """An empty `model_repository_agents { }` makes tritonserver crash (segmentation
    fault) while it polls the repository, taking every other model down with it; an
    agent without a name can never be found.

    Bad:
        model_repository_agents { }
    Good:
        (no model_repository_agents block)
    """
    if not config.HasField("model_repository_agents"):
        return
    agents = config.model_repository_agents.agents
    if not agents:
        yield Finding(
            f"{model_label(context)} has an empty model_repository_agents block, which "
            "crashes tritonserver while it polls the repository",
            at=("model_repository_agents",),
            hint='delete the block, or list an agent: agents [ { name: "checksum" ... } ]',
        )
    for index, agent in enumerate(agents):
        if not agent.name:
            yield Finding(
                f"repository agent {index} of {model_label(context)} has no name; Triton "
                "looks for libtritonrepoagent_.so and refuses the model",
                at=("model_repository_agents", "agents", index),
                hint='name the agent, e.g. name: "checksum"',
            )
