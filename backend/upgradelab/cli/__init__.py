"""`upgradelab`: the command line for ops and CI pipelines. It talks to the API, like the UI does;
one module per topic (runs, targets, datasets, replay, users, server), the HTTP helpers in client.py."""

import typer

from upgradelab.cli.assess import assess
from upgradelab.cli.captures import capture_app
from upgradelab.cli.datasets import datasets_app
from upgradelab.cli.explain import explain
from upgradelab.cli.fix import fix
from upgradelab.cli.pools import pools
from upgradelab.cli.replay import replay_app
from upgradelab.cli.runs import run
from upgradelab.cli.server import db_app, serve
from upgradelab.cli.targets import targets_app
from upgradelab.cli.users import login, users_app

app = typer.Typer(
    help="Upgrade Lab: prove MySQL upgrade risks before you upgrade.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
# Registration order is the order `upgradelab --help` lists them in.
app.command()(run)
app.command()(serve)
app.command()(login)
app.add_typer(db_app, name="db")
app.add_typer(users_app, name="users")
app.add_typer(targets_app, name="targets")
app.add_typer(datasets_app, name="datasets")
app.add_typer(replay_app, name="replay")
app.add_typer(capture_app, name="capture")
app.command()(pools)
app.command()(explain)
app.command()(fix)
app.command()(assess)
