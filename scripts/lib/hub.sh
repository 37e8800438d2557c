# shellcheck shell=bash
# Shared by the hub's tests and demo: a private PostgreSQL and clup-hub processes in one
# work directory. Source it after scripts/lib/kiosk.sh, with WORK and BIN set.
#
#   hub_start_postgres            private cluster in $WORK/pg (exports PGHOST PGUSER …)
#   hub_write_config NAME PORT    $WORK/NAME.toml: that port (on HUB_HOST, default 127.0.0.1),
#                                 state in $WORK/hub, the cluster
#   hub_init                      clup-hub init (CA, certificate, schema) with $WORK/hub.toml
#   hub_serve NAME PORT           starts clup-hub serve; waits until /v1/health answers
#   hub_start                     all of the above for hub "hub" on a free port (HUB_PORT, HUB_URL)
#   hub_kill NAME [SIGNAL]        stops (SIGTERM) or kills that hub
#   hub_stop_all                  every hub, then PostgreSQL

# A free TCP port on loopback.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

clup_hub() { "$BIN/clup-hub" "$@" --config "$WORK/hub.toml"; }

# The bearer token for the hub's /metrics in the hubs these scripts start.
HUB_METRICS_TOKEN=${HUB_METRICS_TOKEN:-$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')}
# The bearer token of the phone app, for the bookings API.
HUB_APP_TOKEN=${HUB_APP_TOKEN:-$(head -c 30 /dev/urandom | base64 | tr '+/' '-_')}

# psql on the private cluster, unaligned, tuples only.
hub_psql() { psql -X -v ON_ERROR_STOP=1 -Atq "$@"; }

hub_start_postgres() {
  eval "$("$ROOT/scripts/private-postgres" start "$WORK/pg")"
  export PGHOST PGPORT PGUSER PGDATABASE
}

hub_write_config() {
  local name=$1 port=$2 extra_name=""
  [ -n "${HUB_HOST:-}" ] && extra_name=", \"$HUB_HOST\""
  cat > "$WORK/$name.toml" <<TOML
[hub]
host = "${HUB_HOST:-127.0.0.1}"
port = $port
state_directory = "$WORK/hub"
names = ["localhost", "127.0.0.1"$extra_name]
enrolment_code_hours = ${HUB_CODE_HOURS:-24}
metrics_token = "$HUB_METRICS_TOKEN"
app_token = "$HUB_APP_TOKEN"
[database]
socket_directory = "$PGHOST"
port = $PGPORT
user = "$PGUSER"
name = "$PGDATABASE"
TOML
}

# A private PostgreSQL, the hub's CA and schema, and hub "hub" serving on a free port:
# HUB_PORT, HUB_URL.
hub_start() {
  hub_start_postgres
  HUB_PORT=$(free_port)
  hub_write_config hub "$HUB_PORT"
  hub_init
  hub_serve hub "$HUB_PORT"
  # shellcheck disable=SC2034 # for the scripts that source this one
  HUB_URL="https://127.0.0.1:$HUB_PORT"
}

hub_init() {
  "$BIN/clup-hub" init --config "$WORK/hub.toml" >"$WORK/hub-init.log" 2>&1 || { cat "$WORK/hub-init.log" >&2; return 1; }
}

# Starts hub NAME on PORT (config $WORK/NAME.toml, written if missing) and waits until it
# serves; its pid is in HUB_PID_NAME.
hub_serve() {
  local name=$1 port=$2
  [ -f "$WORK/$name.toml" ] || hub_write_config "$name" "$port"
  # HUB_WRAP: a command the hub runs under (env with systemd's CREDENTIALS_DIRECTORY, say).
  ${HUB_WRAP:-} "$BIN/clup-hub" serve --config "$WORK/$name.toml" >>"$WORK/$name.log" 2>&1 &
  local pid=$!
  eval "HUB_PID_$name=$pid"
  echo "$pid" >> "$WORK/hub-pids"
  for _ in $(seq 1 300); do
    curl -sf --cacert "$WORK/hub/ca.pem" "https://${HUB_HOST:-127.0.0.1}:$port/v1/health" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { echo "clup-hub $name exited; its log:" >&2; cat "$WORK/$name.log" >&2; return 1; }
    sleep 0.1  # not a wait: the pause between this helper's polls
  done
  echo "clup-hub $name did not answer within 30 s" >&2
  return 1
}

# Sends SIGNAL to PID and waits for it to end; after 15 s, SIGKILL (and says so).
stop_pid() {
  local pid=$1 signal=${2:-TERM}
  kill "-$signal" "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done  # not a wait: this helper's polls
  if kill -0 "$pid" 2>/dev/null; then
    echo "pid $pid ignored SIG$signal for 15 s; killed" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

hub_kill() {
  local name=$1 signal=${2:-TERM} var="HUB_PID_$1"
  local pid=${!var:-}
  [ -n "$pid" ] || return 0
  stop_pid "$pid" "$signal"
  eval "HUB_PID_$name="
}

hub_stop_all() {
  if [ -f "$WORK/hub-pids" ]; then
    while read -r pid; do stop_pid "$pid"; done < "$WORK/hub-pids"
  fi
  if [ -d "$WORK/pg" ]; then "$ROOT/scripts/private-postgres" stop "$WORK/pg" 2>/dev/null || true; fi
}
