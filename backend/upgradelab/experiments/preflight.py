"""Pre-flight of a variant on an existing server: capabilities detected again, then refusals by
capability, each naming the capability it misses (the runner's one call: preflight_refusal).

Refused: startup options (an existing server takes no option file), a cold policy without the
restart capability ("warm only"), redo-off without alter_instance, SET GLOBAL / instance statements
without set_global / alter_instance, a template that needs databases of its own, a writing template on
a target not marked disposable or on a read-only server, no usable lab database, and anything at all
on a target of purpose capture (read-only: targets/provisioners/existing_settings.py).
"""

from sqlalchemy import select

from upgradelab.db import sync_session
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.targets.capabilities import Capabilities, detect, keep_tested_restart
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import Provisioner
from upgradelab.targets.provisioners.existing import ExistingProvisioner
from upgradelab.targets.provisioners.existing_settings import read_only_refusal
from upgradelab.workloads import Workload


def capability_refusal(
    variant: ResolvedVariant,
    policy: str,
    workload: Workload,
    capabilities: Capabilities,
    *,
    disposable: bool,
    database: str,
) -> str | None:
    """Why this variant cannot run on an existing server with these capabilities (None: it can).

    The message names the missing capability, e.g. "cold_first restarts the server before ...;
    capability restart unavailable: no SHUTDOWN privilege (RESTART needs it): use the warm policy".
    """
    options = variant.option_lines()
    if options:
        return (
            f"startup options {', '.join(options)} need an option file; capability startup_options "
            "unavailable: an existing server takes none (a dynamic variable can go in SET GLOBAL)"
        )
    if policy != "warm" and not capabilities.has("restart"):
        return (
            f"the {policy} policy restarts the server; capability restart unavailable: "
            f"{capabilities.get('restart').detail}: warm only (use the warm policy)"
        )
    if (variant.redo_log == "disabled" or variant.instance) and not capabilities.has("alter_instance"):
        detail = capabilities.get("alter_instance").detail
        return f"ALTER INSTANCE (redo log off) needs capability alter_instance: {detail}"
    if variant.set_global and not capabilities.has("set_global"):
        return (
            f"SET GLOBAL {', '.join(variant.set_global)} needs capability set_global: "
            f"{capabilities.get('set_global').detail}"
        )
    slug = workload.info.slug
    if not workload.uses_lab_database:
        return f"{slug} makes databases of its own; on an existing server the lab works only in {database!r}"
    if not workload.read_only:
        if not disposable:
            return (
                f"{slug} creates and drops tables; the target is not marked disposable "
                "(only read-only templates run there)"
            )
        if capabilities.read_only or capabilities.super_read_only:
            return f"{slug} writes; the server is read-only (read_only / super_read_only ON)"
        if not capabilities.has("lab_database"):
            return f"{slug} needs capability lab_database: {capabilities.get('lab_database').detail}"
    return workload.lab_database_refusal(database)


def stored_refusal(target: Target, variant: ResolvedVariant, policy: str, workload: Workload) -> str | None:
    """capability_refusal with the capabilities stored on the target (at experiment creation, before
    any run); None for targets the lab runs itself or without stored capabilities."""
    if target.provisioner != ExistingProvisioner.kind:
        return None
    refused = read_only_refusal(target.name, target.provisioner, target.settings)
    if refused or not target.capabilities:
        return refused
    return capability_refusal(
        variant,
        policy,
        workload,
        target.capabilities,
        disposable=target.disposable,
        database=target.settings.database or "",
    )


def store_capabilities(target_name: str, capabilities: Capabilities) -> None:
    """Write the detected capabilities (and version) to the target row."""
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == target_name)).one()
        target.capabilities = capabilities
        target.version = capabilities.version
        session.commit()


def preflight_refusal(
    target: Target, provisioner: Provisioner, variant: ResolvedVariant, policy: str, workload: Workload
) -> str | None:
    """For an existing target: detect the capabilities (once per run and target; stored on the
    target), remember what the variant will change (put back when the run ends) and return the
    capability refusal. None for every other kind of target."""
    if not isinstance(provisioner, ExistingProvisioner):
        return None
    refused = read_only_refusal(target.name, target.provisioner, target.settings)
    if refused:  # before anything connects: a read-only target is sent no write check either
        return refused
    if provisioner.capabilities_cache is None:
        with provisioner.session():  # ProvisionError naming host:port when it cannot be reached
            pass
        fresh = detect(provisioner.endpoint)
        provisioner.capabilities_cache = keep_tested_restart(fresh, target.capabilities)
        store_capabilities(target.name, provisioner.capabilities_cache)
    provisioner.remember(list(variant.set_global), variant.redo_log == "disabled")
    return capability_refusal(
        variant,
        policy,
        workload,
        provisioner.capabilities_cache,
        disposable=target.disposable,
        database=provisioner.cfg.database or "",
    )
