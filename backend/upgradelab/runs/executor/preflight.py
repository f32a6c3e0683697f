"""Before the first iteration: the options each variant's server starts with, and the refusals.

A refusal fails that variant only (its reason stored on its run_variant row); the others run.
"""

import pymysql

from upgradelab.experiments.preflight import preflight_refusal
from upgradelab.experiments.variants import ResolvedVariant, unsupported_reason
from upgradelab.measurement import settings_refusal
from upgradelab.probes import startup_options
from upgradelab.runs.executor.variant_settings import apply_settings, has_settings
from upgradelab.targets.models import Target
from upgradelab.targets.options import render_option
from upgradelab.targets.provisioners import Provisioner, ProvisionError
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.workloads import TargetFacts, Workload


class VariantFailed(Exception):
    """A variant was refused or broke; the message names the variant and the reason."""


def facts(target: Target) -> TargetFacts:
    """What a workload may ask of the target."""
    return TargetFacts(target.name, target.flavor, target.version or "", target.disposable)


# Every start of a run's instance begins with an empty buffer pool. MySQL 5.6+ and MariaDB 10.2+ dump
# the buffer pool's page list at a clean shutdown and read those pages back after the next start
# (both ON by default): a policy restart ("cold") would then start warm, and a kept datadir's second
# run warmer than its first. Off here, before the template's and the variant's options, so either may
# turn it on again. (The OS page cache is not dropped: templates that need it cold, count-star and
# parallel-read, add innodb_flush_method=O_DIRECT.)
EMPTY_POOL_AT_START: dict[str, str | None] = {
    "innodb_buffer_pool_dump_at_shutdown": "OFF",
    "innodb_buffer_pool_load_at_startup": "OFF",
}


def server_options(workload: Workload, target: Target, variant: ResolvedVariant) -> list[str]:
    """EMPTY_POOL_AT_START, the probes' options, the template's for this target (parameters
    included), then the variant's: an option file's last occurrence wins, so the variant overrides
    them all."""
    options = [
        *EMPTY_POOL_AT_START.items(),
        *startup_options(target.flavor).items(),
        *workload.server_options(facts(target)).items(),
    ]
    return [render_option(k, v) for k, v in options] + variant.option_lines()


def refusal(
    workload: Workload, variant: ResolvedVariant, target: Target, provisioner: Provisioner, policy: str
) -> str | None:
    """Why this variant cannot run (the flavor, the template, an existing server's capabilities for
    this policy, the server's option check, its settings tried on a scratch start of its own
    instance), as "variant '<name>' ...", or None."""
    reason = (
        unsupported_reason(variant, target.flavor, target.version)
        or workload.refusal(facts(target))
        or preflight_refusal(target, provisioner, variant, policy, workload)
    )
    if reason:
        return f"variant {variant.name!r} cannot run on {target.name}: {reason}"
    options = server_options(workload, target, variant)
    try:
        provisioner.check_options(options)
    except ProvisionError as refused:
        return f"variant {variant.name!r}: {target.name} ({target.version}) refuses its options:\n{refused}"
    if not has_settings(variant):
        return None
    try:
        connection = provisioner.start(options).connect()
    except (ProvisionError, pymysql.MySQLError) as error:
        return f"variant {variant.name!r}: server did not start for the pre-flight: {error}"
    try:
        refused_setting = settings_refusal(connection, variant)
    finally:
        connection.close()
        provisioner.stop()
    if refused_setting:
        return f"variant {variant.name!r}: {target.name} ({target.version}) refuses {refused_setting}"
    return None


def apply_variant(connection: ServerConnection, variant: ResolvedVariant) -> None:
    """Apply what cannot go in the option file: the variant's instance statements, SET GLOBAL and
    SET SESSION (on this, the workload connection), then the redo log switch, verified by
    Innodb_redo_log_enabled.

    Raises VariantFailed if the server's status does not show the requested state.
    """
    apply_settings(connection, variant)
    if variant.redo_log != "disabled":
        return
    with connection.cursor() as cursor:
        cursor.execute("ALTER INSTANCE DISABLE INNODB REDO_LOG")
        cursor.execute("SHOW GLOBAL STATUS LIKE 'Innodb_redo_log_enabled'")
        row = cursor.fetchone()
    if row is None or str(row[1]).upper() != "OFF":
        raise VariantFailed(
            f"variant {variant.name!r}: Innodb_redo_log_enabled is {row and row[1]!r}, not OFF"
        )
