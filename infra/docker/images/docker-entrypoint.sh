#!/bin/bash
# Entrypoint of the lab's locally built server images, following the official mysql/mariadb images:
#   - arguments starting with '-' are server flags: `image --innodb_buffer_pool_size=256M` runs
#     "$UPGRADELAB_SERVER --innodb_buffer_pool_size=256M" (mysqld or mariadbd);
#   - on the first start (no /var/lib/mysql/mysql), the datadir is initialized with the same flags
#     (mysqld --initialize-insecure, or mariadb-install-db), then a socket-only temporary server
#     applies MYSQL_ROOT_PASSWORD / MARIADB_ROOT_PASSWORD (or MYSQL_ALLOW_EMPTY_PASSWORD /
#     MARIADB_ALLOW_EMPTY_ROOT_PASSWORD) to root@localhost, root@'%' (MYSQL_ROOT_HOST, default %;
#     no other root account is left), MYSQL_DATABASE,
#     MYSQL_USER / MYSQL_PASSWORD (MARIADB_* names too) and the *.sql files of
#     /docker-entrypoint-initdb.d, and is shut down;
#   - the server then runs in the foreground as the mysql user, logging to stderr (docker logs).
set -eo pipefail

SERVER=${UPGRADELAB_SERVER:-mysqld}
DATADIR=/var/lib/mysql
SOCKET=/run/mysqld/init.sock

note() { printf '[entrypoint] %s\n' "$*" >&2; }
env_of() { # env_of MYSQL_X: the MARIADB_X or MYSQL_X value
  local mariadb="MARIADB_${1#MYSQL_}"
  printf '%s' "${!mariadb:-${!1:-}}"
}
sql_string() { printf "%s" "${1//\'/\'\'}"; }

if [ "${1:0:1}" = '-' ]; then
  set -- "$SERVER" "$@"
fi
if [ "$1" != mysqld ] && [ "$1" != mariadbd ] && [ "$1" != "$SERVER" ]; then
  exec "$@"
fi
for arg in "$@"; do
  case "$arg" in
    --help | --verbose | -V | --version | --validate-config | --print-defaults) exec "$@" --user=mysql ;;
  esac
done

mkdir -p /run/mysqld "$DATADIR"
chown mysql:mysql /run/mysqld "$DATADIR"

if [ ! -d "$DATADIR/mysql" ]; then
  root_password=$(env_of MYSQL_ROOT_PASSWORD)
  allow_empty=$(env_of MYSQL_ALLOW_EMPTY_PASSWORD)
  [ -n "$allow_empty" ] || allow_empty=${MARIADB_ALLOW_EMPTY_ROOT_PASSWORD:-}
  if [ -z "$root_password" ] && [ -z "$allow_empty" ]; then
    note "error: database is uninitialized and no root password option is given:"
    note "  set MYSQL_ROOT_PASSWORD (MARIADB_ROOT_PASSWORD) or MYSQL_ALLOW_EMPTY_PASSWORD"
    exit 1
  fi
  note "initializing $DATADIR"
  if command -v mariadb-install-db >/dev/null; then
    mariadb-install-db --user=mysql --datadir="$DATADIR" --skip-test-db \
      --auth-root-authentication-method=normal "${@:2}" >&2
    client=mariadb
  else
    "$@" --initialize-insecure --user=mysql --datadir="$DATADIR" >&2
    client=mysql
  fi
  "$@" --user=mysql --skip-networking --socket="$SOCKET" --datadir="$DATADIR" &
  temp_pid=$!
  for _ in $(seq 1 120); do
    if "$client" --protocol=socket --socket="$SOCKET" -uroot -e 'SELECT 1' >/dev/null 2>&1; then break; fi
    kill -0 "$temp_pid" 2>/dev/null || { note "temporary server exited"; exit 1; }
    sleep 0.5
  done
  root_host=$(env_of MYSQL_ROOT_HOST)
  root_host=${root_host:-%}
  database=$(env_of MYSQL_DATABASE)
  user=$(env_of MYSQL_USER)
  password=$(env_of MYSQL_PASSWORD)
  {
    echo "SET @@SESSION.SQL_LOG_BIN=0;"
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY '$(sql_string "$root_password")';"
    # mariadb-install-db's `normal` root method also makes root@127.0.0.1, root@::1 and
    # root@<hostname> without a password (the official image drops them too): with host networking
    # any local user would be root over TCP. root is at localhost and MYSQL_ROOT_HOST only.
    echo "DROP USER IF EXISTS 'root'@'127.0.0.1', 'root'@'::1', 'root'@'$(sql_string "${HOSTNAME:-localhost.invalid}")';"
    if [ "$root_host" != localhost ]; then
      echo "CREATE USER IF NOT EXISTS 'root'@'$(sql_string "$root_host")' IDENTIFIED BY '$(sql_string "$root_password")';"
      echo "GRANT ALL ON *.* TO 'root'@'$(sql_string "$root_host")' WITH GRANT OPTION;"
    fi
    [ -z "$database" ] || echo "CREATE DATABASE IF NOT EXISTS \`$database\`;"
    if [ -n "$user" ]; then
      echo "CREATE USER IF NOT EXISTS '$(sql_string "$user")'@'%' IDENTIFIED BY '$(sql_string "$password")';"
      [ -z "$database" ] || echo "GRANT ALL ON \`$database\`.* TO '$(sql_string "$user")'@'%';"
    fi
    for file in /docker-entrypoint-initdb.d/*.sql; do
      [ -e "$file" ] && cat "$file"
    done
    echo "FLUSH PRIVILEGES;"
  } | "$client" --protocol=socket --socket="$SOCKET" -uroot
  kill "$temp_pid"
  wait "$temp_pid" || true
  note "initialization done"
fi

exec "$@" --user=mysql
