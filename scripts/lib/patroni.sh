# shellcheck shell=bash
# A replicated PostgreSQL for the hub, on this machine: one etcd and two PostgreSQL 15
# under Patroni (Debian's packages), in $WORK/patroni, on free loopback ports; synchronous
# replication, so that a commit is on both servers before the hub answers. Source it after
# scripts/lib/hub.sh (free_port, stop_pid), with WORK and ROOT set.
#
#   patroni_start            etcd, then nodes 1 and 2; waits for a primary and a synchronous
#                            replica; exports PATRONI_MEMBERS ("127.0.0.1:P1", "127.0.0.1:P2")
#   patroni_primary          the number (1 or 2) of the node that is primary now, or nothing
#   patroni_wait_sync        until a replica is synchronous (streaming and in sync)
#   patroni_psql N …         psql on node N as the hub's role
#   patroni_kill N           SIGKILL node N: Patroni and its PostgreSQL, as a machine that dies
#   patroni_stop_all         everything, gently
#   patroni_write_hub_config NAME PORT   $WORK/NAME.toml for a hub using both nodes

patroni_bin=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1)

# Runs a command as the owner of the clusters: PostgreSQL refuses root.
patroni_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

patroni_start() {
  local dir="$WORK/patroni" node
  mkdir -p "$dir/etcd"
  PATRONI_ETCD_PORT=$(free_port) PATRONI_ETCD_PEER=$(free_port)
  etcd --name clup-etcd --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$PATRONI_ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$PATRONI_ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$PATRONI_ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$PATRONI_ETCD_PEER" \
    --initial-cluster "clup-etcd=http://127.0.0.1:$PATRONI_ETCD_PEER" >"$dir/etcd.log" 2>&1 &
  echo $! > "$dir/etcd.pid"
  for _ in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$PATRONI_ETCD_PORT/health" 2>/dev/null | grep -q '"health":"true"' && break
    sleep 0.1  # not a wait: the pause between this helper's polls
  done
  curl -sf "http://127.0.0.1:$PATRONI_ETCD_PORT/health" | grep -q '"health":"true"' || { cat "$dir/etcd.log" >&2; return 1; }
  [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
  for node in 1 2; do
    eval "PATRONI_PG_$node=$(free_port) PATRONI_API_$node=$(free_port)"
    patroni_write_node "$node"
  done
  patroni_start_node 1
  for _ in $(seq 1 600); do [ "$(patroni_primary)" = 1 ] && break; sleep 0.1; done  # not a wait: this helper's polls
  [ "$(patroni_primary)" = 1 ] || { echo "patroni: node 1 did not become primary; its log:" >&2; tail -n 40 "$dir/node1.log" >&2; return 1; }
  patroni_start_node 2
  patroni_wait_sync
  PATRONI_MEMBERS="\"127.0.0.1:$PATRONI_PG_1\", \"127.0.0.1:$PATRONI_PG_2\""
  # The hub's role and database, made on the primary (and so on the replica).
  patroni_psql 1 -d postgres -U postgres -c "CREATE ROLE clup LOGIN SUPERUSER" -c "CREATE DATABASE clup OWNER clup" >/dev/null
}

# The node's configuration: its PostgreSQL on loopback TCP (trust: the test's own machine)
# and a socket folder of its own; a leader key that lives 20 s (Patroni's least).
patroni_write_node() {
  local node=$1 dir="$WORK/patroni/node$1" pg api
  pg=$(eval echo "\$PATRONI_PG_$node") api=$(eval echo "\$PATRONI_API_$node")
  mkdir -p "$dir"
  cat > "$dir/patroni.yml" <<YAML
scope: clup-hub
name: node$node
log:
  level: WARNING
restapi:
  listen: 127.0.0.1:$api
  connect_address: 127.0.0.1:$api
etcd3:
  host: 127.0.0.1:$PATRONI_ETCD_PORT
bootstrap:
  dcs:
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 0
    synchronous_mode: true
    postgresql:
      use_pg_rewind: false
      parameters:
        max_connections: 200
        wal_level: replica
        hot_standby: "on"
        max_wal_senders: 5
        max_replication_slots: 5
        wal_keep_size: 256MB
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication replicator 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$pg
  connect_address: 127.0.0.1:$pg
  data_dir: $dir/data
  bin_dir: $patroni_bin
  pgpass: $dir/pgpass
  authentication:
    superuser:
      username: postgres
      password: patroni-test
    replication:
      username: replicator
      password: patroni-test
  parameters:
    unix_socket_directories: $dir
    fsync: "on"
YAML
  [ "$(id -u)" -eq 0 ] && chown -R postgres: "$dir"
  return 0
}

patroni_start_node() {
  local node=$1 dir="$WORK/patroni/node$1"
  # Its own pid written by itself: under runuser, $! would be runuser's. From its own
  # folder: Patroni's workers go back to the folder it started in, which the postgres user
  # may not enter (a checkout in /root).
  # shellcheck disable=SC2016 # for that sh to expand
  (cd "$dir" && patroni_as_owner sh -c 'echo $$ > "$1/patroni.pid"; exec patroni "$1/patroni.yml"' patroni "$dir") \
    >>"$WORK/patroni/node$node.log" 2>&1 &
  for _ in $(seq 1 50); do [ -s "$dir/patroni.pid" ] && break; sleep 0.1; done  # not a wait: this helper's polls
}

# 1 or 2: the node whose REST API says it is the primary (200 on /primary).
patroni_primary() {
  local node api
  for node in 1 2; do
    api=$(eval echo "\$PATRONI_API_$node")
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$api/primary" 2>/dev/null)" = 200 ] && { echo "$node"; return 0; }
  done
  return 0
}

patroni_wait_sync() {
  local api
  for _ in $(seq 1 900); do
    for node in 1 2; do
      api=$(eval echo "\$PATRONI_API_$node")
      [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$api/sync" 2>/dev/null)" = 200 ] && return 0
    done
    sleep 0.1  # not a wait: the pause between this helper's polls
  done
  echo "patroni: no synchronous replica within 90 s; the logs:" >&2
  tail -n 20 "$WORK/patroni/node1.log" "$WORK/patroni/node2.log" >&2
  return 1
}

patroni_psql() {
  local node=$1; shift
  psql -X -v ON_ERROR_STOP=1 -Atq -h 127.0.0.1 -p "$(eval echo "\$PATRONI_PG_$node")" -U clup -d clup "$@"
}

# SIGKILL to node N's Patroni and every process of its PostgreSQL: the machine is gone.
patroni_kill() {
  local node=$1 dir="$WORK/patroni/node$1" postmaster
  postmaster=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null || true)
  kill -KILL "$(cat "$dir/patroni.pid")" 2>/dev/null || true
  if [ -n "$postmaster" ]; then
    kill -KILL $(pgrep -P "$postmaster") "$postmaster" 2>/dev/null || true
  fi
}

patroni_stop_all() {
  local node
  for node in 1 2; do
    [ -f "$WORK/patroni/node$node/patroni.pid" ] && stop_pid "$(cat "$WORK/patroni/node$node/patroni.pid")"
  done
  [ -f "$WORK/patroni/etcd.pid" ] && stop_pid "$(cat "$WORK/patroni/etcd.pid")"
  return 0
}

patroni_write_hub_config() {
  local name=$1 port=$2
  cat > "$WORK/$name.toml" <<TOML
[hub]
host = "127.0.0.1"
port = $port
state_directory = "$WORK/hub"
names = ["localhost", "127.0.0.1"]
metrics_token = "$HUB_METRICS_TOKEN"
app_token = "$HUB_APP_TOKEN"
[database]
members = [$PATRONI_MEMBERS]
user = "clup"
name = "clup"
TOML
}
