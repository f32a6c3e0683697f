"""Candidates: the settings that differ between the baseline and the variant, each with the change
that gives the variant the baseline's value (its `revert`), and those that cannot be tested.

Where they come from:
- the variants' own configuration: startup options, the redo-log preset, SET GLOBAL and instance
  statements that differ (each one candidate, covering the recorded variables it names: `skip-log-bin`
  covers log_bin, log_bin_basename, log_bin_index);
- the recorded contexts (SHOW GLOBAL VARIABLES at start, run_variant.variables) where the two
  variants run different binaries: every other differing variable, less identity, paths and ports,
  that the variant's server takes as a startup option (its own option list and the allowlist,
  `accepts`) or as SET GLOBAL. On one binary the other differences follow from the configuration
  (auto-sized values) and are listed, not tested.
Known changed defaults (attribution/known_defaults.py) come first: ddmin keeps the order.
"""

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from upgradelab.attribution.known_defaults import KNOWN_CHANGED_DEFAULTS
from upgradelab.experiments.server_settings import SettingError, validate_variable
from upgradelab.experiments.variants import ResolvedVariant

# Variables that name an instance rather than configure it, or change on every start.
IDENTITY = frozenset(
    [
        "hostname",
        "server_id",
        "server_uuid",
        "pid_file",
        "datadir",
        "basedir",
        "socket",
        "port",
        "mysqlx_port",
        "mysqlx_socket",
        "admin_port",
        "version",
        "version_comment",
        "version_compile_machine",
        "version_compile_os",
        "version_compile_zlib",
        "version_source_revision",
        "version_ssl_library",
        "tmpdir",
        "plugin_dir",
        "character_sets_dir",
        "lc_messages_dir",
        "secure_file_priv",
        "general_log_file",
        "slow_query_log_file",
        "log_error",
        "relay_log",
        "relay_log_basename",
        "relay_log_index",
        "relay_log_info_file",
        "log_bin_basename",
        "log_bin_index",
        "innodb_data_home_dir",
        "innodb_log_group_home_dir",
        "innodb_undo_directory",
        "innodb_temp_data_file_path",
        "innodb_data_file_path",
        "gtid_executed",
        "gtid_purged",
        "gtid_owned",
        "timestamp",
        "report_host",
        "report_port",
        "open_files_limit",
        "large_files_support",
        "system_time_zone",
        "time_zone",
        "thread_stack",
        "wsrep_node_name",
    ]
)
# Accepts(option, value) -> None when the variant's server takes `option=value` (bare flag: None),
# else the reason (not one of its options, a refused category).
Accepts = Callable[[str, str | None], str | None]


@dataclass
class Candidate:
    """One testable difference: `name` as shown, `kind` (option, redo_log, set_global, instance,
    variable), the recorded `variables` it covers, both values, `known` (a changed default's note) and
    `revert`: {"remove_options": [...], "add_options": {name: value|None}, "set_global": {...},
    "remove_set_global": [...], "redo_log": "enabled"|"disabled", "remove_instance": [...],
    "add_instance": [...]}, and `lines`: what an option file or session would say to reproduce the
    baseline's behaviour."""

    name: str
    kind: str
    baseline: str | None
    variant: str | None
    variables: list[str] = field(default_factory=list)
    known: str | None = None
    revert: dict[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON shape stored in attribution.candidates."""
        return asdict(self)


@dataclass
class Untestable:
    """A differing variable the search leaves out, and why ("cannot be tested" on the page)."""

    name: str
    reason: str
    baseline: str | None
    variant: str | None


def _bare(option: str) -> str:
    name = option.replace("-", "_")
    for prefix in ("loose_", "skip_", "enable_", "disable_"):
        name = name.removeprefix(prefix)
    return name


def _line(name: str, value: str | None) -> str:
    return name if value is None else f"{name}={value}"


def _known(variables: list[str]) -> str | None:
    return next((KNOWN_CHANGED_DEFAULTS[v] for v in variables if v in KNOWN_CHANGED_DEFAULTS), None)


def _config_candidates(
    baseline: ResolvedVariant, variant: ResolvedVariant, diff: Mapping[str, tuple[str | None, str | None]]
) -> list[Candidate]:
    """Candidates from the variants' configurations (options, redo log, SET GLOBAL, instance)."""
    out: list[Candidate] = []
    base_opts, var_opts = baseline.options, variant.options
    for option in [*var_opts, *(o for o in base_opts if o not in var_opts)]:
        if option in base_opts and option in var_opts and base_opts[option] == var_opts[option]:
            continue
        bare = _bare(option)
        covered = sorted(v for v in diff if v == bare or v.startswith(bare + "_"))
        revert: dict[str, Any] = {"remove_options": [option]} if option in var_opts else {}
        lines = [f"# drop {_line(option, var_opts[option])}"] if option in var_opts else []
        if option in base_opts:
            revert["add_options"] = {option: base_opts[option]}
            lines = [_line(option, base_opts[option])]
        out.append(
            Candidate(
                name=option,
                kind="option",
                baseline=_line(option, base_opts[option]) if option in base_opts else None,
                variant=_line(option, var_opts[option]) if option in var_opts else None,
                variables=covered,
                known=_known(covered or [bare]),
                revert=revert,
                lines=lines,
            )
        )
    if baseline.redo_log != variant.redo_log:
        state = baseline.redo_log
        out.append(
            Candidate(
                name="redo log",
                kind="redo_log",
                baseline=state,
                variant=variant.redo_log,
                revert={"redo_log": state},
                lines=[f"ALTER INSTANCE {'ENABLE' if state == 'enabled' else 'DISABLE'} INNODB REDO_LOG"],
            )
        )
    base_set, var_set = baseline.set_global, variant.set_global
    for name in sorted(set(base_set) | set(var_set)):
        if base_set.get(name) == var_set.get(name):
            continue
        revert = {"set_global": {name: base_set[name]}} if name in base_set else {"remove_set_global": [name]}
        out.append(
            Candidate(
                name=f"SET GLOBAL {name}",
                kind="set_global",
                baseline=base_set.get(name),
                variant=var_set.get(name),
                variables=[name] if name in diff else [],
                known=_known([name]),
                revert=revert,
                lines=[f"SET GLOBAL {name} = {base_set[name]}"] if name in base_set else [],
            )
        )
    base_inst, var_inst = baseline.instance, variant.instance
    for statement in [s for s in var_inst if s not in base_inst] + [
        s for s in base_inst if s not in var_inst
    ]:
        mine = statement in var_inst
        out.append(
            Candidate(
                name=statement,
                kind="instance",
                baseline=None if mine else statement,
                variant=statement if mine else None,
                revert={"remove_instance": [statement]} if mine else {"add_instance": [statement]},
                lines=[] if mine else [statement],
            )
        )
    return out


def _variable_candidate(
    name: str, base: str | None, var: str | None, accepts: Accepts
) -> Candidate | Untestable:
    if base is None:
        return Untestable(name, "the baseline's server has no such variable", base, var)
    if var is None:
        return Untestable(name, "the variant's server has no such variable", base, var)
    if "/" in base or "/" in var:
        return Untestable(name, "a path, not a setting", base, var)
    if name.startswith("have_"):
        return Untestable(
            name, "a read-only flag of what the server was built with, not a setting", base, var
        )
    if name == "log_bin":  # a value names the binary log's base name: the switch is a flag
        on = base.upper() == "ON"
        option, value, remove = (
            ("log-bin" if on else "skip-log-bin"),
            None,
            ["skip-log-bin" if on else "log-bin"],
        )
    else:
        option, value, remove = name.replace("_", "-"), base, []
    refusal = accepts(option, value)
    if refusal is None:
        return Candidate(
            name=name,
            kind="variable",
            baseline=base,
            variant=var,
            variables=[name],
            known=_known([name]),
            revert={"add_options": {option: value}, "remove_options": remove},
            lines=[_line(option, value)],
        )
    try:
        validate_variable("SET GLOBAL", name, base)
    except SettingError as error:
        return Untestable(name, f"not a startup option ({refusal}) and not SET GLOBAL ({error})", base, var)
    return Candidate(
        name=name,
        kind="variable",
        baseline=base,
        variant=var,
        variables=[name],
        known=_known([name]),
        revert={"set_global": {name: base}},
        lines=[f"SET GLOBAL {name} = {base}"],
    )


def build(
    baseline: ResolvedVariant,
    variant: ResolvedVariant,
    diff: Mapping[str, tuple[str | None, str | None]],
    same_binary: bool,
    accepts: Accepts,
) -> tuple[list[Candidate], list[Untestable]]:
    """(candidates in the order to try: known changed defaults first, then by name; what cannot be
    tested, with the reason). baseline / variant: the resolved variants (experiment.variants);
    diff: variable -> (baseline value, variant value) from the recorded contexts
    (results/views/context.py variables_diff); same_binary: both ran one target's binary."""
    found = _config_candidates(baseline, variant, diff)
    covered = {v for c in found for v in c.variables}
    untestable: list[Untestable] = []
    for name in sorted(diff):
        if name in covered:
            continue
        base, var = diff[name]
        if (
            name in IDENTITY
            or name == "server_uid"
            or name.endswith(("_dir", "_file", "_path", "_socket", "_port"))
        ):
            untestable.append(Untestable(name, "identity, path or port of the instance", base, var))
        elif same_binary:
            untestable.append(
                Untestable(
                    name,
                    "follows from the settings above on the same binary (an auto-sized value)",
                    base,
                    var,
                )
            )
        else:
            one = _variable_candidate(name, base, var, accepts)
            if isinstance(one, Candidate):
                found.append(one)
            else:
                untestable.append(one)
    base_session, var_session = baseline.set_session, variant.set_session
    for name in sorted(set(base_session) | set(var_session)):
        if base_session.get(name) != var_session.get(name):
            untestable.append(
                Untestable(
                    f"SET SESSION {name}",
                    "a session setting of the workload's connection, not a server setting "
                    "(candidates are startup options, SET GLOBAL, the redo log and instance statements)",
                    base_session.get(name),
                    var_session.get(name),
                )
            )
    found.sort(key=lambda c: (c.known is None, c.kind == "variable", c.name))
    return found, untestable


def reverted(variant: ResolvedVariant, chosen: list[Candidate], name: str) -> ResolvedVariant:
    """The variant (one of experiment.variants) with the baseline's values for `chosen`, named `name`."""
    options = dict(variant.options)
    set_global = dict(variant.set_global)
    instance = list(variant.instance)
    redo_log = variant.redo_log
    for candidate in chosen:
        revert = candidate.revert
        for option in revert.get("remove_options", []):
            options.pop(option, None)
        options.update(revert.get("add_options", {}))
        for setting in revert.get("remove_set_global", []):
            set_global.pop(setting, None)
        set_global.update(revert.get("set_global", {}))
        instance = [s for s in instance if s not in revert.get("remove_instance", [])]
        instance += [s for s in revert.get("add_instance", []) if s not in instance]
        redo_log = revert.get("redo_log", redo_log)
    preset = variant.preset or "default"
    if redo_log == "enabled" and "redo-off" in preset:
        preset = "+".join(p for p in preset.split("+") if p.strip() != "redo-off") or "default"
    changed = {"name": name, "preset": preset, "options": options, "set_global": set_global}
    return ResolvedVariant.model_validate(
        variant.model_dump() | changed | {"instance": instance, "redo_log": redo_log}
    )
