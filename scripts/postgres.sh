#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster on loopback, for the tests, scripts/cluster.sh and the
# benchmarks: its own folder and port, so Debian's default cluster (5432), if the package
# made one, is left alone.
#
#   scripts/postgres.sh up              # init (first time) and start; prints the URL, e.g.
#                                       #   URL=$(scripts/postgres.sh up)
#   scripts/postgres.sh createdb NAME   # a fresh empty database NAME (dropped first if it exists), owned by griot; prints its URL
#   scripts/postgres.sh dropdb NAME     # drops database NAME if it exists
#   scripts/postgres.sh url [NAME]      # the URL (of database griot, or NAME); does not check that it runs
#   scripts/postgres.sh status          # "running …" and exit 0, or "not running" and exit 3
#   scripts/postgres.sh down            # stop it (fast: open sessions are cut) and remove its folder
#   scripts/postgres.sh checkpoint      # write every changed page to the table files (CHECKPOINT), then print
#                                       #   the cluster's folder: the encryption tests scan its files
#
# GRIOT_PG_PORT (default 54329) and GRIOT_PG_DIR (default /tmp/griot-pg-$PORT) choose the
# cluster. Only URLs go to stdout; every other message goes to stderr.
#
# Installs Debian's postgresql-15 if it is missing. initdb refuses to run as root, so the
# cluster belongs to the postgres user: initdb, pg_ctl and the superuser's psql run as it
# (runuser as root, sudo otherwise). The superuser connects through the Unix socket in /tmp
# with peer authentication; everyone else over TCP on 127.0.0.1 with a password: role griot,
# password griot, LOGIN and CREATEDB, owner of database griot. Settings for a test and bench
# box: max_connections 300 (three nodes' pools plus a test suite), shared_buffers 256MB,
# fsync left on. From nothing, `up` took 1.5-1.7 s on our machine kind (with a Swift build
# busy on both cores), `down` 2 s.
set -euo pipefail
port="${GRIOT_PG_PORT:-54329}"
dir="${GRIOT_PG_DIR:-/tmp/griot-pg-$port}"
bin=/usr/lib/postgresql/15/bin
socket_dir=/tmp
log="$dir/server.log"

say() { echo "postgres: $*" >&2; }
die() { say "$*"; exit 1; }
url() { echo "postgres://griot:griot@127.0.0.1:$port/${1:-griot}"; }

case "$port" in ''|*[!0-9]*) die "GRIOT_PG_PORT is \"$port\"; set it to a port number, e.g. 54329" ;; esac
case "$dir" in /*) ;; *) die "GRIOT_PG_DIR is \"$dir\"; set it to an absolute path, e.g. /tmp/griot-pg-$port" ;; esac

sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
# A command as the postgres user (the owner of the cluster's files).
as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres -- "$@"; fi
}

install_postgres() {
    dpkg -s postgresql-15 >/dev/null 2>&1 && [ -x "$bin/initdb" ] && return 0
    say "installing postgresql-15"
    $sudo apt-get update -qq >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >&2
}

# Whether $dir holds a cluster (asked as postgres: the folder is closed to others).
is_cluster() { [ -d "$dir" ] && as_postgres test -f "$dir/PG_VERSION"; }
running() { is_cluster && as_postgres "$bin/pg_ctl" status -D "$dir" >/dev/null 2>&1; }

# psql as the superuser, through the socket; stops at the first error.
superuser_psql() {
    as_postgres env PGOPTIONS="-c client_min_messages=warning" "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$socket_dir" -p "$port" -d postgres "$@"
}

# A database name that needs no quoting (and so cannot smuggle SQL in).
check_name() {
    [[ "$1" =~ ^[a-z_][a-z0-9_]{0,62}$ ]] ||
        die "database name \"$1\" is not allowed: use lower-case letters, digits and _ (at most 63, not starting with a digit), e.g. griot_test_1"
    case "$1" in postgres|template0|template1) die "database name \"$1\" is PostgreSQL's own; choose another, e.g. griot_test_1" ;; esac
}

# initdb (when the folder holds no cluster yet), then pg_ctl start.
start() {
    if ! is_cluster; then
        if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
            die "$dir exists and is not a PostgreSQL cluster; remove it or set GRIOT_PG_DIR to another folder"
        fi
        mkdir -p "$dir" 2>/dev/null || $sudo mkdir -p "$dir"
        $sudo chown postgres:postgres "$dir"
        $sudo chmod 700 "$dir"
        as_postgres test -w "$dir" ||
            die "the postgres user cannot write $dir (is a folder above it closed to others?); set GRIOT_PG_DIR to a folder under /tmp"
        # --no-sync: initdb's own flush of every new file took 3 of the 4 seconds of `up` while
        # a build ran; for a throwaway cluster that is not worth it (the server keeps fsync on).
        say "initdb $dir"
        local initdb_log
        initdb_log="$(mktemp)"
        as_postgres "$bin/initdb" -D "$dir" --username=postgres --encoding=UTF8 --locale=C.UTF-8 \
            --auth-local=peer --auth-host=scram-sha-256 --no-sync >"$initdb_log" 2>&1 ||
            { cat "$initdb_log" >&2; rm -f "$initdb_log"; die "initdb failed (above)"; }
        rm -f "$initdb_log"
        as_postgres tee -a "$dir/postgresql.conf" >/dev/null <<EOF

# scripts/postgres.sh: a throwaway cluster for tests, the local cluster and benchmarks.
max_connections = 300
shared_buffers = 256MB
fsync = on
log_line_prefix = '%m [%p] %q%u@%d '
EOF
    fi
    say "starting on 127.0.0.1:$port (log $log)"
    if ! as_postgres "$bin/pg_ctl" start -D "$dir" -l "$log" -w -t 60 \
            -o "-p $port -k $socket_dir -c listen_addresses=127.0.0.1" >/dev/null 9>&-; then
        as_postgres tail -n 20 "$log" >&2 || true
        die "PostgreSQL did not start (log above: $log); is port $port taken? Set GRIOT_PG_PORT to another"
    fi
}

up() {
    install_postgres
    if running; then
        say "already running in $dir on 127.0.0.1:$port"
    else
        start
    fi
    # The role and the database, if missing (cheap, so also on a cluster that was running).
    superuser_psql <<'EOF'
SELECT 'CREATE ROLE griot LOGIN CREATEDB PASSWORD ''griot'''
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'griot') \gexec
SELECT 'CREATE DATABASE griot OWNER griot'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'griot') \gexec
EOF
    url
}

down() {
    if [ ! -e "$dir" ]; then
        say "nothing in $dir"
        return
    fi
    # Only ever remove a cluster folder (or an empty one): never what a mistyped GRIOT_PG_DIR names.
    if ! is_cluster && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
        die "$dir is not a PostgreSQL cluster; not removing it"
    fi
    if running; then
        say "stopping the cluster in $dir"
        as_postgres "$bin/pg_ctl" stop -D "$dir" -m fast -w -t 60 >/dev/null
    fi
    $sudo rm -rf "$dir"
    say "removed $dir"
}

status() {
    if running; then
        echo "running: 127.0.0.1:$port, $dir (pid $(as_postgres head -n 1 "$dir/postmaster.pid"))"
        return 0
    fi
    echo "not running: 127.0.0.1:$port, $dir"
    return 3
}

createdb() {
    check_name "$1"
    running || up >/dev/null
    superuser_psql -c "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)" -c "CREATE DATABASE \"$1\" OWNER griot"
    url "$1"
}

dropdb() {
    check_name "$1"
    running || die "no cluster running in $dir; start it with scripts/postgres.sh up"
    superuser_psql -c "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)"
}

checkpoint() {
    running || die "no cluster running in $dir; start it with scripts/postgres.sh up"
    superuser_psql -c "CHECKPOINT" >/dev/null
    echo "$dir"
}

usage() {
    echo "usage: scripts/postgres.sh up|down|status|url [NAME]|createdb NAME|dropdb NAME|checkpoint (GRIOT_PG_PORT, GRIOT_PG_DIR)" >&2
    exit 2
}

# One change at a time per cluster (two callers' `up` from nothing would both run initdb).
case "${1:-}" in
    up|down|createdb|dropdb) exec 9>>"$dir.lock"; flock 9 ;;
esac

case "${1:-}" in
    up) [ $# = 1 ] || usage; up ;;
    down) [ $# = 1 ] || usage; down ;;
    status) [ $# = 1 ] || usage; status ;;
    url) [ $# -le 2 ] || usage; [ $# = 1 ] || check_name "$2"; url "${2:-}" ;;
    createdb) [ $# = 2 ] || usage; createdb "$2" ;;
    dropdb) [ $# = 2 ] || usage; dropdb "$2" ;;
    checkpoint) [ $# = 1 ] || usage; checkpoint ;;
    *) usage ;;
esac
