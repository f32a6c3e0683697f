"""The local provisioner: a mysqld/mariadbd process on this machine, optionally inside a chroot.

Layout, under `{root}{server_dir}/{target}/` (root is `/` or a chroot such as the lab's sid chroot):

    template/          initialized once (`mysqld --initialize-insecure` or `mariadb-install-db`),
                       started once with an init file that keys the lab's admin account (below),
                       then kept read-only
    instances/{slot}/  one server instance per slot (a run gives every variant its own slot):
        data/          a fresh copy of template/ for every start(): each variant begins from the same
                       state; kept per (target, slot) so a prepared dataset is reused by later runs
        my.cnf         written on every start: managed options, target base options, then the variant's
        error.log      the server's log; its tail is in every ProvisionError
        tmp/           the server's tmpdir (its own, not the shared /tmp)
        files/         the server's secure-file-priv: an empty directory, the only one file SQL may touch
        mysqld.pid, mysqld.sock

Ports: slot 0 listens on the target's port; every other slot on a free 127.0.0.1 port chosen by
binding port 0 when the provisioner is made (so two runs' instances never share a number). That port
is free when chosen and bound by the server a moment later; it lies in the kernel's ephemeral range,
so an outgoing connection may take it in between (seen under load): a start whose server says
"Address already in use" is made again on another free port (PORT_CLASH_RETRIES times).

The admin account (credentials.py): `user`@127.0.0.1 with a password random per target, kept in the
worker's state directory (or the one the settings name); root@localhost locked. A template or kept
data/ recording another key (credentials.KEY_FILE: made before issue 30 with the fixed password, or
with another password) is started once with the keying init file before it is used.
"""

import copy
import logging
import shutil
import subprocess
from pathlib import Path

from upgradelab.targets.provisioners import processes, spares
from upgradelab.targets.provisioners.base import (
    Endpoint,
    NotReady,
    ProvisionError,
    free_port,
    select_version,
    wait_for_select_1,
)
from upgradelab.targets.provisioners.local_instance import LocalSettings
from upgradelab.targets.provisioners.local_template import READY_MARKER, LocalTemplate

log = logging.getLogger(__name__)
PORT_CLASH_RETRIES = 2


class LocalProvisioner(LocalTemplate):
    """Start, restart and stop one target's server as a local process (see module docstring).

    Its layers, each a module: LocalInstance (settings, paths, account, ownership, log),
    LocalOptions (option files and checks), LocalProcess (launch, stop, freeze), LocalTemplate
    (the initialized template); this one starts instances, with spares, and discards them."""

    kind = "local"
    fresh_data = False  # set by each start (Provisioner.fresh_data)
    instances = True  # any number of servers of this target can run at once (one per slot)

    def start(self, options: list[str], *, keep_data: bool = False) -> Endpoint:
        """Stop any running server, copy template/ to a fresh data/, write my.cnf, start, await SELECT 1.

        keep_data=True keeps an existing data/ (a prepared dataset, see workloads/datasets.py).
        A spare instance of this slot (spares.py: started fresh from the template after the slot's last
        run, frozen since) with the same option file is taken instead: thawed, SELECT 1 awaited. A spare
        that does not match is killed and its datadir removed first. Waits for a spare of this slot
        that is still starting (at most the start timeout)."""
        self.ensure_initialized()
        try:
            with spares.slot(self._spare_key, self.start_timeout_s):
                spare = spares.take(self._spare_key)
                if spare is not None:
                    if not keep_data and self._matches(spare, options):
                        try:
                            return self._adopt(spare, options)
                        except ProvisionError as gone:  # it died while it waited: start as without it
                            log.warning("target %s: spare instance not taken: %s", self.target_name, gone)
                    spare.owner.discard()
                return self._start(options, keep_data)
        except TimeoutError as error:
            raise self._fail(str(error)) from None

    def _matches(self, spare: spares.Spare, options: list[str]) -> bool:
        """Whether the spare runs, on this slot's port, with exactly the option file this start writes."""
        owner: LocalProvisioner = spare.owner
        process = owner._server_process()
        return (
            spare.port == self.port
            and process is not None
            and processes.server(process.pid) is not None  # alive, not a zombie (killed by someone)
            and owner._option_file("data", spare.options) == self._option_file("data", options)
        )

    def _adopt(self, spare: spares.Spare, options: list[str]) -> Endpoint:
        """Take the spare's process (thawed, SELECT 1 awaited); ProvisionError when it does not answer
        (the spare is then still the owner's: the caller discards it)."""
        owner: LocalProvisioner = spare.owner
        self._process = owner._process
        self._options = list(options)
        self._throwaway, self._keep_at_end = True, False
        self.thaw()
        try:
            wait_for_select_1(self.endpoint, self.start_timeout_s, self._exit_reason)
        except NotReady as not_ready:
            self._process, self._throwaway = None, False
            raise self._fail(str(not_ready)) from None
        owner._process, owner._throwaway = None, False
        self._served = True
        self.fresh_data = True  # a spare is started on a fresh copy and has served nothing
        return self.endpoint

    def _start(self, options: list[str], keep_data: bool) -> Endpoint:
        self.stop()
        self._prepare_dir()  # this slot's directory (the template may have been made by another slot)
        data = self._host("data")
        self._keep_at_end = self._keep_at_end or keep_data
        self.fresh_data = not (keep_data and (data / "mysql").is_dir())
        if self.fresh_data:
            shutil.rmtree(data, ignore_errors=True)
            subprocess.run(["cp", "-a", str(self._template_host()), str(data)], check=True)
            (data / READY_MARKER).unlink(missing_ok=True)
        elif not self._keyed(data):  # a kept datadir (a loaded dataset) copied from an older template
            self._key("data")
        self._throwaway = not self._keep_at_end
        self._options = list(options)
        for attempt in range(PORT_CLASH_RETRIES + 1):
            self._host("error.log").unlink(missing_ok=True)
            cnf = self._write_option_file("my.cnf", "data", options)
            self._launch(cnf)
            try:
                self._wait_ready()
                break
            except ProvisionError:
                if self.slot == 0 or attempt == PORT_CLASH_RETRIES or not self._port_clash():
                    raise
                # free_port() released the port before the server bound it; an outgoing connection's
                # ephemeral port (the same kernel range) took it meanwhile: another free port
                taken, self.port = self.port, free_port(self.cfg.host)
                log.warning(
                    "target %s slot %d: port %d taken meanwhile, on %d",
                    self.target_name,
                    self.slot,
                    taken,
                    self.port,
                )
        self._served = True
        return self.endpoint

    def _port_clash(self) -> bool:
        """Whether the server's start failed because its port was in use (both flavors' error log say
        "Bind on TCP/IP port ... Address already in use")."""
        return "Address already in use" in self.log_tail(50)

    def restart(self) -> Endpoint:
        """Stop and start again on the same datadir and my.cnf (cold caches, persisted state kept)."""
        self.stop()
        self._launch(self._inner("my.cnf"))
        self._wait_ready()
        return self.endpoint

    def discard(self) -> None:
        """A throw-away datadir (copied fresh, and no start of this instance asked keep_data): SIGKILL
        the server and remove data/, no clean shutdown; any other (a dataset's copy): stop() cleanly.
        With `spare_instance_s` > 0, a throw-away instance that was up is followed by a spare of this
        slot with the same options (spares.py), started in the background: this returns once the killed
        server has exited (processes.kill), without waiting for the spare."""
        throwaway, self._throwaway, self._keep_at_end = self._throwaway, False, False
        served, self._served = self._served, False
        if not throwaway:
            self.stop()
            return
        process = self._server_process()
        if process is not None:
            processes.kill(process)
        if self._process is not None:
            self._process.poll()  # reaped by processes.kill: record its exit code
        self._process = None
        shutil.rmtree(self._host("data"), ignore_errors=True)
        if served and not self._is_spare and self.app.spare_instance_s > 0:
            self._spare(list(self._options))

    def forget_data(self) -> None:
        """discard() throws this datadir away (Provisioner.forget_data)."""
        self._throwaway, self._keep_at_end = True, False

    def _spare(self, options: list[str]) -> None:
        twin = copy.copy(self)
        twin._process, twin._served, twin._is_spare = None, False, True

        def start() -> "LocalProvisioner":
            twin._start(options, keep_data=False)
            twin.freeze()
            return twin

        spares.prepare(
            self._spare_key,
            self.port,
            options,
            start,
            twin.discard,
            self.app.spare_instance_s,
        )

    def describe(self) -> dict[str, str]:
        """What produced this instance's numbers: {"image_or_binary": the server binary (with the
        chroot it runs in), "option_file": the text of its my.cnf ('' before the first start)}."""
        binary = self.cfg.mysqld if self.root == Path("/") else f"{self.root}:{self.cfg.mysqld}"
        cnf = self._host("my.cnf")
        return {"image_or_binary": binary, "option_file": cnf.read_text() if cnf.exists() else ""}

    def server_version(self) -> str:
        """SELECT VERSION() from the running server, or from the template started briefly (a frozen
        spare of this slot is killed first: it would not answer)."""
        if self._process is None:
            with spares.slot(self._spare_key, self.start_timeout_s):
                spare = spares.take(self._spare_key)
                if spare is not None:
                    spare.owner.discard()
        if self._server_process() is None:
            self.ensure_initialized()
            self._prepare_dir()  # this slot's directory, owned by mysql (its socket goes there)
            self._launch(self._write_option_file("template.cnf", "template", []))
            try:
                self._wait_ready()
                return select_version(self.endpoint)
            finally:
                self.stop()
        return select_version(self.endpoint)


__all__ = ["LocalProvisioner", "LocalSettings"]
