#!/usr/bin/env bash
# Runs COMMAND... beside a real PostgreSQL server of its own, and stops the server afterwards.
# The server (Debian's postgresql package) is made with initdb in a temporary folder and listens
# on a Unix socket in that folder only (no TCP port); its URL is in $HARNESS_TEST_POSTGRES, and
# $HARNESS_TEST_POSTGRES_CTL stops it (`"$HARNESS_TEST_POSTGRES_CTL" stop`, for a test of a
# server that goes away) or starts it again. PostgreSQL refuses to run as root: as root, the
# server runs as the `postgres` user the package creates (the folder is given to it).
# Usage: with_postgres.sh COMMAND [ARGS...]; exits with COMMAND's status (1 when no server).
set -u
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "with_postgres.sh: no PostgreSQL server here (apt-get install postgresql; ./dev.sh test does)" >&2
  exit 1
fi
work=$(mktemp -d /tmp/harness-pg.XXXXXX)
as_server=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres: "$work"
  as_server=(setpriv --reuid=postgres --regid=postgres --init-groups --)
fi
chmod 755 "$work"
ctl="$work/ctl"
# The control script: start or stop this server (pg_ctl as the server's user).
cat >"$ctl" <<EOF2
#!/bin/sh
cd "$work" || exit 1
case "\$1" in
  start) exec ${as_server[*]} "$bin/pg_ctl" -D "$work/data" -l "$work/log" -w -t 60 -o "-k $work -c listen_addresses= -c fsync=off" start >/dev/null ;;
  stop) exec ${as_server[*]} "$bin/pg_ctl" -D "$work/data" -m immediate -w stop >/dev/null ;;
esac
EOF2
chmod 755 "$ctl"
stop() {
  "$ctl" stop 2>/dev/null
  rm -rf "$work"
}
trap stop EXIT
(cd "$work" && "${as_server[@]}" "$bin/initdb" -D "$work/data" -U harness -A trust -E UTF8 \
  --no-locale >"$work/initdb.log" 2>&1) || {
  echo "with_postgres.sh: initdb failed:" >&2
  cat "$work/initdb.log" >&2
  exit 1
}
if ! "$ctl" start; then
  echo "with_postgres.sh: the server did not start:" >&2
  cat "$work/log" >&2
  exit 1
fi
export HARNESS_TEST_POSTGRES="postgresql://harness@/postgres?host=$work"
export HARNESS_TEST_POSTGRES_CTL="$ctl"
"$@"
