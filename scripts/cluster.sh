#!/usr/bin/env bash
# A local Griot cluster: three `griot serve` nodes sharing one PostgreSQL (scripts/postgres.sh)
# behind our own nginx, to try, test and benchmark what only shows with several nodes (a
# token, a rate limit or a stream resumed on another node than the one that made it, a node
# draining or dying under load).
#
#   scripts/cluster.sh up        # PostgreSQL, the nodes (each waited for until GET /readyz answers 200), nginx
#   scripts/cluster.sh status    # each part's state and each node's /readyz; exit 0 when all run, 3 otherwise
#   scripts/cluster.sh down      # nginx, the nodes (SIGTERM, SIGKILL after 25 s), PostgreSQL (its data removed)
#   scripts/cluster.sh config    # write and check the nginx config only; prints its path
#   scripts/cluster.sh proxy up|down  # nginx alone, in front of whatever answers on the nodes' ports (stubs)
#   scripts/cluster.sh node N start|stop|kill  # one node of a running cluster: start it (waited for
#                                # until ready), SIGTERM it (it drains) or SIGKILL it (as if it died)
#
# Clients use http://127.0.0.1:$GRIOT_CLUSTER_PORT (default 8080). Node N listens on
# 127.0.0.1:818N (GRIOT_CLUSTER_BASE_PORT+N, default 8180+N) and logs to
# $GRIOT_CLUSTER_DIR/node-N.log; GRIOT_CLUSTER_NODES
# (default 3) sets how many; GRIOT_CLUSTER_DIR (default /tmp/griot-cluster) holds the logs,
# pid files, shared secrets and nginx's config, pid, logs and temp folders. GRIOT_BIN runs
# another griot binary than .build/release/griot, which is built (release) only when missing.
# The nodes get this script's environment (GRIOT_AUTH_MODE, GRIOT_PROVIDER, …) plus
# `--database` and GRIOT_DATABASE_URL set to the PostgreSQL URL (GRIOT_PG_PORT, GRIOT_PG_DIR
# choose that cluster). GRIOT_CLUSTER_READY_TIMEOUT (default 120) is how long `up` waits for
# the nodes to be ready. The demo corpus (corpus/) is ingested into the shared database first,
# unless GRIOT_CLUSTER_NO_CORPUS is set.
#
# The nodes must share their per-installation secrets, or what one node makes another
# rejects or cannot match. Unless set in the environment, each is made once (random, mode
# 0600) in the state folder, kept across down/up, and given to every node:
#   GRIOT_JWT_SECRET  (file: secret)      signs and verifies HS256 bearer tokens; made only when
#                     GRIOT_AUTH_MODE is not development (which uses the published development
#                     secret) and GRIOT_JWKS_FILE is unset (asymmetric keys chosen instead).
#                     Mint a token: GRIOT_JWT_SECRET="$(cat /tmp/griot-cluster/secret)" griot token --user ruth
#   GRIOT_AUDIT_SALT  (file: audit-salt)  keys the audit log's IP hashes (AddressHasher) and the
#                     user pseudonyms under which rate limits and moderation warnings are kept
#                     (UserPseudonyms). On PostgreSQL `griot serve` will not start without it
#                     (there is no file beside the database to keep a salt in), and the
#                     pseudonyms would fall back to a secret kept in the database itself.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${GRIOT_CLUSTER_DIR:-/tmp/griot-cluster}"
nodes="${GRIOT_CLUSTER_NODES:-3}"
listen_port="${GRIOT_CLUSTER_PORT:-8080}"
base_port="${GRIOT_CLUSTER_BASE_PORT:-8180}"
bin="${GRIOT_BIN:-$root/.build/release/griot}"
ngx="$dir/nginx"
conf="$ngx/nginx.conf"
ready_timeout="${GRIOT_CLUSTER_READY_TIMEOUT:-120}"   # seconds for the nodes to answer /readyz 200
stop_grace=25   # seconds: a node drains its streams for GRIOT_SHUTDOWN_GRACE_SECONDS (20) after SIGTERM

say() { echo "cluster: $*" >&2; }
die() { say "$*"; exit 1; }

case "$nodes" in ''|*[!0-9]*) die "GRIOT_CLUSTER_NODES is \"$nodes\"; set it to a number of nodes from 1 to 20, e.g. 3" ;; esac
{ [ "$nodes" -ge 1 ] && [ "$nodes" -le 20 ]; } || die "GRIOT_CLUSTER_NODES is $nodes; set it to a number of nodes from 1 to 20, e.g. 3"
case "$ready_timeout" in ''|*[!0-9]*) die "GRIOT_CLUSTER_READY_TIMEOUT is \"$ready_timeout\"; set it to whole seconds, e.g. 120" ;; esac
case "$listen_port" in ''|*[!0-9]*) die "GRIOT_CLUSTER_PORT is \"$listen_port\"; set it to a port number, e.g. 8080" ;; esac
case "$base_port" in ''|*[!0-9]*) die "GRIOT_CLUSTER_BASE_PORT is \"$base_port\"; set it to a port number, e.g. 8180 (node N listens on it plus N)" ;; esac
{ [ "$base_port" -ge 1024 ] && [ $((base_port + nodes)) -le 65535 ]; } ||
    die "GRIOT_CLUSTER_BASE_PORT is $base_port; node N listens on it plus N, so set it from 1024 to $((65535 - nodes)), e.g. 8180"
case "$dir" in /*) ;; *) die "GRIOT_CLUSTER_DIR is \"$dir\"; set it to an absolute path, e.g. /tmp/griot-cluster" ;; esac

sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"

install_nginx() {
    dpkg -s nginx >/dev/null 2>&1 && command -v nginx >/dev/null && return 0
    say "installing nginx"
    $sudo apt-get update -qq >&2
    # Debian's package enables its own site on port 80 (and may start it); ours neither reads
    # nor changes /etc/nginx.
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >&2
}

node_port() { echo $((base_port + $1)); }
# The pid in a pid file if that process is alive and its command line contains $2 (so a pid
# reused by another program is never signalled).
live_pid() {
    local pid
    pid="$(cat "$1" 2>/dev/null)" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
        tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$2" || return 1
    echo "$pid"
}
nginx_pid() { live_pid "$ngx/nginx.pid" "nginx: master"; }
node_pid() { live_pid "$dir/node-$1.pid" "serve"; }

# A secret kept in $dir/$1: made once (48 random bytes, base64), mode 0600.
secret_from() {
    local file="$dir/$1"
    if [ ! -s "$file" ]; then
        (umask 077; openssl rand -base64 48 | tr -d '\n' >"$file.new" && mv "$file.new" "$file")
        say "made a new shared secret in $file"
    fi
    cat "$file"
}

share_secrets() {
    local mode
    mode="$(printf '%s' "${GRIOT_AUTH_MODE:-}" | tr -d '[:space:]' | tr '[:upper:]' '[:lower:]')"
    if [ -z "${GRIOT_JWT_SECRET:-}" ] && [ "$mode" != development ] && [ -z "${GRIOT_JWKS_FILE:-}" ]; then
        GRIOT_JWT_SECRET="$(secret_from secret)"
        export GRIOT_JWT_SECRET
    fi
    if [ -z "${GRIOT_AUDIT_SALT:-}" ]; then
        GRIOT_AUDIT_SALT="$(secret_from audit-salt)"
        export GRIOT_AUDIT_SALT
    fi
}

write_config() {
    mkdir -p "$ngx/tmp"
    local servers="" n
    for n in $(seq 1 "$nodes"); do
        servers+="        server 127.0.0.1:$(node_port "$n") max_fails=1 fail_timeout=5s;"$'\n'
    done
    cat >"$conf.new" <<EOF
# Written by scripts/cluster.sh on every up; edits are lost. Run as:
#   nginx -p $ngx/ -e $ngx/error.log -c $conf
# Nothing here comes from /etc/nginx, and nothing there is changed.
pid $ngx/nginx.pid;
error_log $ngx/error.log notice;
worker_processes auto;
worker_rlimit_nofile 65536;

events {
    # Two per streaming chat (the client's connection and the one to a node).
    worker_connections 16384;
}

http {
    # A request id for every request: the client's X-Request-ID, else nginx's own, sent to the
    # node (which echoes it and logs it on every line) and written in our access log.
    map \$http_x_request_id \$griot_request_id {
        ""      \$request_id;
        default \$http_x_request_id;
    }
    log_format griot '\$remote_addr [\$time_local] "\$request" \$status \$body_bytes_sent '
                     'rt=\$request_time upstream=\$upstream_addr ustatus=\$upstream_status '
                     'urt=\$upstream_response_time rid=\$griot_request_id';
    access_log $ngx/access.log griot;

    client_body_temp_path $ngx/tmp/body;
    proxy_temp_path $ngx/tmp/proxy;
    fastcgi_temp_path $ngx/tmp/fastcgi;
    uwsgi_temp_path $ngx/tmp/uwsgi;
    scgi_temp_path $ngx/tmp/scgi;
    # Uploads up to the nodes' own limit (8 MiB) and past it, so a node answers 413 in its
    # own words; held in memory, so the workers (nobody) never write a temp file.
    client_max_body_size 16m;
    client_body_buffer_size 16m;
    server_tokens off;
    gzip off;

    # No active health checks in open-source nginx: passive ones. A node that refuses the
    # connection, times out, or answers 502/503/504 is marked failed for 5 s (max_fails=1
    # fail_timeout=5s) and the request goes to the next node (proxy_next_upstream below). A
    # node answers 503 on everything while it is not ready (starting, draining after SIGTERM,
    # behind), so such a node leaves the rotation this way (for all workers: the zone), and
    # is tried again by a request after those 5 s. Only requests that a node has not started
    # on are moved: a POST that reached a node (a new chat, an ingest) is not retried on
    # another, and its 503 neither reaches another node nor takes this one out of rotation;
    # the client gets it (with Retry-After). "non_idempotent" would move those POSTs too, but
    # POST /api/griot/chat answers 503 (ai_unavailable) and 502 after the turn has run and the
    # message is saved, so a retry would store the message twice and put a healthy node
    # (its model provider down) out of rotation. Measured with stub nodes: GETs to a node
    # answering 503 all got 200 from the others; POSTs got its 503 one time in three.
    upstream griot_nodes {
        zone griot_nodes 64k;   # the failure marks shared by all workers
$servers        keepalive 64;
        keepalive_timeout 60s;
    }

    server {
        listen 127.0.0.1:$listen_port;

        location / {
            proxy_pass http://griot_nodes;
            # Keep-alive to the nodes: HTTP/1.1 and no "Connection: close".
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            # Server-Sent Events: every event to the client as the node writes it, and a chat
            # may stream (or a client hold a stream) for up to an hour.
            proxy_buffering off;
            proxy_cache off;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
            proxy_connect_timeout 2s;
            proxy_next_upstream error timeout http_502 http_503 http_504;
            proxy_next_upstream_tries 3;
            # Sent on as they came (nginx passes client headers anyway; named here because
            # the service depends on them): the token, resuming a stream, the request id.
            proxy_set_header Authorization \$http_authorization;
            proxy_set_header Last-Event-ID \$http_last_event_id;
            proxy_set_header X-Request-ID \$griot_request_id;
            # For the logs. The nodes do not read it yet: they see every client as 127.0.0.1
            # (per-address limits on the probe routes, audit IP hashes).
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
        }
    }
}
EOF
    mv "$conf.new" "$conf"
    local check
    if ! check="$(nginx -t -q -p "$ngx/" -e "$ngx/error.log" -c "$conf" 2>&1)"; then
        echo "$check" >&2
        die "nginx rejected $conf (above)"
    fi
}

nginx_up() {
    install_nginx
    write_config
    local pid
    if pid="$(nginx_pid)"; then
        nginx -p "$ngx/" -e "$ngx/error.log" -c "$conf" -s reload
        say "nginx (pid $pid) reloaded: http://127.0.0.1:$listen_port"
        return
    fi
    if ! nginx -p "$ngx/" -e "$ngx/error.log" -c "$conf"; then
        tail -n 5 "$ngx/error.log" >&2 2>/dev/null || true
        die "nginx did not start (its log: $ngx/error.log); is port $listen_port taken? Set GRIOT_CLUSTER_PORT to another"
    fi
    say "nginx (pid $(nginx_pid || echo '?')) on http://127.0.0.1:$listen_port"
}

nginx_down() {
    local pid _
    pid="$(nginx_pid)" || { rm -f "$ngx/nginx.pid"; return 0; }
    # Fast: open streams are cut (a graceful quit would wait for them, up to an hour).
    kill -TERM "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    rm -f "$ngx/nginx.pid"
    say "nginx stopped"
}

# Builds the binary if it is the default one and missing.
ensure_binary() {
    [ -x "$bin" ] && return 0
    [ -z "${GRIOT_BIN:-}" ] || die "GRIOT_BIN is $bin, which is not an executable file"
    say "building griot (release); this takes a while the first time"
    (cd "$root" && swift build -c release --product griot >&2)
}

start_node() {
    local n="$1" url="$2" port log pid _
    port="$(node_port "$n")"
    log="$dir/node-$n.log"
    if pid="$(node_pid "$n")"; then
        say "node $n already running (pid $pid) on 127.0.0.1:$port"
        return
    fi
    echo "=== $(date -u +%Y-%m-%dT%H:%M:%SZ) scripts/cluster.sh: griot serve --port $port" >>"$log"
    # Its own session, so the caller's Ctrl-C does not reach it; down stops it by its pid.
    # nginx connects from 127.0.0.1: its X-Forwarded-For names the client (audit hashes, per-address limits).
    GRIOT_DATABASE_URL="$url" GRIOT_TRUSTED_PROXIES="${GRIOT_TRUSTED_PROXIES:-127.0.0.1}" setsid "$bin" serve --host 127.0.0.1 --port "$port" --database "$url" \
        </dev/null >>"$log" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/node-$n.pid"
    # Until the child has exec'd griot its command line is still this script's, and node_pid
    # (which wants "serve") would take the node for dead: wait for the exec (or the exit).
    for _ in $(seq 1 100); do
        node_pid "$n" >/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    say "node $n starting (pid $pid) on 127.0.0.1:$port, log $log"
}

# Waits until every node in "$@" answers GET /readyz with 200, at most $ready_timeout s in all.
wait_ready() {
    local deadline=$((SECONDS + ready_timeout)) pending=("$@") left n code
    while [ ${#pending[@]} -gt 0 ]; do
        left=()
        for n in "${pending[@]}"; do
            if ! node_pid "$n" >/dev/null; then
                tail -n 20 "$dir/node-$n.log" >&2 || true
                die "node $n exited while starting; its log: $dir/node-$n.log (last lines above)"
            fi
            code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$(node_port "$n")/readyz" || true)"
            if [ "$code" = 200 ]; then say "node $n ready"; else left+=("$n"); fi
        done
        pending=("${left[@]+"${left[@]}"}")
        [ ${#pending[@]} -gt 0 ] || break
        if [ "$SECONDS" -ge "$deadline" ]; then
            for n in "${pending[@]}"; do
                tail -n 5 "$dir/node-$n.log" >&2 || true
                say "node $n not ready after $ready_timeout s; its log: $dir/node-$n.log (last lines above)"
            done
            die "not ready: node(s) ${pending[*]}; see their logs, then scripts/cluster.sh down"
        fi
        sleep 0.5
    done
}

stop_nodes() {
    local file n pid pids=() _
    for file in "$dir"/node-*.pid; do
        [ -e "$file" ] || continue
        n="${file##*/node-}"; n="${n%.pid}"
        if pid="$(node_pid "$n")"; then kill -TERM "$pid"; pids+=("$pid"); say "node $n (pid $pid): SIGTERM"; fi
        rm -f "$file"
    done
    [ ${#pids[@]} -gt 0 ] || return 0
    for _ in $(seq 1 $((stop_grace * 10))); do
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && break; pid=""; done
        [ -n "$pid" ] || { say "nodes stopped"; return 0; }
        sleep 0.1
    done
    for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null && { say "pid $pid still running after $stop_grace s: SIGKILL"; kill -KILL "$pid"; }
    done
    return 0
}

up() {
    install_nginx
    mkdir -p "$dir"
    "$root/scripts/setup.sh"   # the model and tokenizer files the nodes load
    ensure_binary
    local url n rest=()
    url="$("$root/scripts/postgres.sh" up)"
    share_secrets
    # The bundled demo corpus, as a single node seeds its own database on first use. Stories
    # already stored unchanged are skipped, so a second `up` costs only the comparison.
    if [ -z "${GRIOT_CLUSTER_NO_CORPUS:-}" ]; then
        say "ingesting the demo corpus into the shared database"
        "$bin" ingest "$root/corpus" --database "$url" >&2
    fi
    # Node 1 first, alone: the first node on an empty database creates its schema; the others
    # then start together on a database that is ready.
    start_node 1 "$url"
    wait_ready 1
    for n in $(seq 2 "$nodes"); do start_node "$n" "$url"; rest+=("$n"); done
    [ ${#rest[@]} -eq 0 ] || wait_ready "${rest[@]}"
    nginx_up
    say "up: http://127.0.0.1:$listen_port -> $nodes node(s), PostgreSQL $url"
}

down() {
    nginx_down
    stop_nodes
    "$root/scripts/postgres.sh" down
    say "down (logs and shared secrets kept in $dir)"
}

status() {
    local ok=0 n pid port code body
    if "$root/scripts/postgres.sh" status | sed 's/^/postgres: /'; then :; else ok=3; fi
    for n in $(seq 1 "$nodes"); do
        port="$(node_port "$n")"
        if pid="$(node_pid "$n")"; then
            body="$(curl -s --max-time 3 -w '\n%{http_code}' "http://127.0.0.1:$port/readyz" || true)"
            code="${body##*$'\n'}"; body="${body%$'\n'*}"; body="${body//$'\n'/ }"
            echo "node $n: running (pid $pid) on 127.0.0.1:$port; /readyz ${code:-no answer}: $body"
            [ "$code" = 200 ] || ok=3
        else
            echo "node $n: not running (127.0.0.1:$port; log $dir/node-$n.log)"
            ok=3
        fi
    done
    if pid="$(nginx_pid)"; then
        echo "nginx: running (pid $pid) on http://127.0.0.1:$listen_port (config $conf, logs $ngx/)"
    else
        echo "nginx: not running"
        ok=3
    fi
    return "$ok"
}

# One node of a running cluster, for tests of a node that dies or drains while the others serve:
# start (the same environment, secrets and database as `up` gives it; waited for until ready),
# stop (SIGTERM: it drains its streams) or kill (SIGKILL: no goodbye, replies left `streaming`).
one_node() {
    local n="$1" action="$2" pid url _
    case "$n" in ''|*[!0-9]*) die "node \"$n\" is not a node number; use 1 to $nodes, e.g. scripts/cluster.sh node 2 kill" ;; esac
    { [ "$n" -ge 1 ] && [ "$n" -le "$nodes" ]; } || die "there is no node $n; use 1 to $nodes (GRIOT_CLUSTER_NODES)"
    case "$action" in
        start)
            ensure_binary
            "$root/scripts/postgres.sh" status >/dev/null ||
                die "PostgreSQL is not running, so node $n has no database; bring the cluster up first (scripts/cluster.sh up)"
            url="$("$root/scripts/postgres.sh" url)"
            share_secrets
            start_node "$n" "$url"
            wait_ready "$n"
            ;;
        stop|kill)
            pid="$(node_pid "$n")" || { say "node $n is not running"; rm -f "$dir/node-$n.pid"; return 0; }
            if [ "$action" = kill ]; then
                kill -KILL "$pid"
                say "node $n (pid $pid): SIGKILL"
            else
                kill -TERM "$pid"
                say "node $n (pid $pid): SIGTERM"
            fi
            for _ in $(seq 1 $((stop_grace * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            if kill -0 "$pid" 2>/dev/null; then say "pid $pid still running after $stop_grace s: SIGKILL"; kill -KILL "$pid"; fi
            rm -f "$dir/node-$n.pid"
            ;;
        *) usage ;;
    esac
}

usage() {
    echo "usage: scripts/cluster.sh up|down|status|config|proxy up|proxy down|node N start|stop|kill" >&2
    echo "  (GRIOT_CLUSTER_NODES, GRIOT_CLUSTER_PORT, GRIOT_CLUSTER_BASE_PORT, GRIOT_CLUSTER_DIR, GRIOT_BIN, GRIOT_PG_PORT, GRIOT_PG_DIR)" >&2
    exit 2
}

case "${1:-}:${2:-}" in
    up:) up ;;
    down:) down ;;
    status:) status ;;
    config:) install_nginx; write_config; echo "$conf" ;;
    proxy:up) nginx_up ;;
    proxy:down) nginx_down ;;
    node:*) [ $# -eq 3 ] || usage; one_node "$2" "$3" ;;
    *) usage ;;
esac
