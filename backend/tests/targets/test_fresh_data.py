"""A local start says whether its datadir is a fresh copy of the template (Provisioner.fresh_data): a
dataset's first start on a slot is one, so runs/executor/blocks.py does not start the server again to
make it fresh."""

from tests.conftest import lab_provisioner


def test_fresh_data_tells_a_fresh_copy_from_a_kept_datadir(database: None) -> None:
    provisioner = lab_provisioner("mariadb-10.11", suffix="fresh")
    try:
        provisioner.start([], keep_data=True)  # nothing kept yet: a fresh copy
        assert provisioner.fresh_data
        connection = provisioner.endpoint.connect()
        with connection.cursor() as cursor:
            cursor.execute("CREATE DATABASE kept_here")
        connection.close()
        provisioner.start([], keep_data=True)  # the same datadir again
        assert not provisioner.fresh_data
        connection = provisioner.endpoint.connect()
        with connection.cursor() as cursor:
            assert cursor.execute("SHOW DATABASES LIKE 'kept_here'") == 1
        connection.close()
        provisioner.start([], keep_data=False)
        assert provisioner.fresh_data
        connection = provisioner.endpoint.connect()
        with connection.cursor() as cursor:
            assert cursor.execute("SHOW DATABASES LIKE 'kept_here'") == 0
        connection.close()
    finally:
        provisioner.forget_data()
        provisioner.discard()
