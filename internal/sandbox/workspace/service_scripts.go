package workspace

// The service scripts are POSIX sh (a busybox sh is enough), run through
// Exec, so one supervisor serves local, Docker and pod workspaces alike.
// Every process of a service carries SANDBOX_SERVICE_TOKEN=<token> in its
// environment and lives in the session the supervisor opens (setsid), so
// it is found again from state alone: by that token and by the session id,
// which is the supervisor's pid (the kernel does not reuse a pid while a
// session of that id has members).

// serviceTokenEnv marks every process of a service.
const serviceTokenEnv = "SANDBOX_SERVICE_TOKEN"

// serviceStartScript: $1 log file, $2 restart ("no"|"on-failure"), $3 log
// cap in bytes, $4 token, then "--" and the service argv. It starts the
// supervisor in a new session, waits for it to write its pid and start time
// (clock ticks since boot), and prints them: "<pid> <ticks>".
const serviceStartScript = `set -e
log=$1; restart=$2; cap=$3; token=$4; shift 5
for f in "${log%/*}" "$log" "$log.pid" "$log.1"; do
  [ -L "$f" ] && { echo "$f is a symbolic link: the service log is never written through one" >&2; exit 1; }
done
mkdir -p "${log%/*}"
rm -f "$log.pid"
printf '%s\n' "--- starting $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$log"
unset SANDBOX_EXEC_TOKEN
export ` + serviceTokenEnv + `="$token"
setsid sh -c "$SANDBOX_SERVICE_SUPERVISOR" sandbox-service "$log" "$restart" "$cap" "$@" </dev/null >/dev/null 2>&1 &
i=0
while [ ! -s "$log.pid" ]; do
  i=$((i+1)); [ $i -gt 100 ] && { echo "the supervisor did not start" >&2; exit 1; }
  sleep 0.1
done
cat "$log.pid"
`

// serviceSupervisor runs in its own session: it starts the service with
// stdout and stderr appended to the log, keeps the log under its cap (the
// older half moves to <log>.1), restarts the service after a non-zero exit
// when asked to, and exits with the service otherwise.
const serviceSupervisor = `log=$1; restart=$2; cap=$3; shift 3
unset SANDBOX_SERVICE_SUPERVISOR
ticks() { s=$(cat /proc/$1/stat); s=${s##*) }; set -- $s; echo "${20}"; }
echo "$$ $(ticks $$)" > "$log.pid.tmp" && mv -f "$log.pid.tmp" "$log.pid"
child=
trap '[ -n "$child" ] && kill -TERM $child 2>/dev/null; exit 143' TERM INT
( while sleep 2; do
    kill -0 $$ 2>/dev/null || exit 0
    size=$(wc -c < "$log" 2>/dev/null) || continue
    if [ "$size" -gt "$cap" ]; then tail -c $((cap/2)) "$log" > "$log.1"; : > "$log"; fi
  done ) </dev/null >/dev/null 2>&1 &
while :; do
  "$@" </dev/null >> "$log" 2>&1 &
  child=$!
  wait $child; rc=$?
  child=
  printf '%s\n' "--- exited with code $rc at $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$log"
  if [ "$restart" != on-failure ] || [ $rc -eq 0 ]; then exit $rc; fi
  sleep 1
  printf '%s\n' "--- restarting" >> "$log"
done
`

// hasToken succeeds when process $1 carries the service's token: the
// supervisor's pid and start time come back through a file the workspace
// can write, so they are trusted only for a process that has it.
const hasToken = `hasToken() { tr '\0' '\n' < /proc/$1/environ 2>/dev/null | grep -qx "` + serviceTokenEnv + `=$token"; }
`

// serviceMembers lists (in the function members) the live processes of a
// service: $pid and $ticks identify the supervisor, $token marks them. The
// session of $pid counts only while $pid itself carries the token.
const serviceMembers = hasToken + `members() {
  lead=alive
  if [ -r /proc/$pid/stat ]; then
    s=$(cat /proc/$pid/stat 2>/dev/null); s=${s##*) }; set -- $s
    [ "${20}" = "$ticks" ] && hasToken $pid || lead=other
  else
    lead=other
  fi
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = "$$" ] && continue
    s=$(cat $d/stat 2>/dev/null) || continue
    s=${s##*) }; set -- $s
    [ "$1" = Z ] && continue
    if [ "$lead" = alive ] && [ "$4" = "$pid" ]; then echo $p; continue; fi
    if hasToken $p; then echo $p; fi
  done
}
`

// serviceStatusScript: $1 pid, $2 ticks, $3 token. Prints "running" when
// the supervisor is alive (not a zombie) with that start time and token,
// else "stopped".
const serviceStatusScript = `pid=$1; ticks=$2; token=$3
` + hasToken + `s=$(cat /proc/$pid/stat 2>/dev/null) || { echo stopped; exit 0; }
s=${s##*) }; set -- $s
if [ "$1" != Z ] && [ "${20}" = "$ticks" ] && hasToken $pid; then echo running; else echo stopped; fi
`

// serviceStopScript: $1 pid, $2 ticks, $3 token, $4 seconds to wait after
// SIGTERM. Prints "<terminated> <killed>": how many processes got SIGTERM
// and how many were still there for SIGKILL.
const serviceStopScript = `pid=$1; ticks=$2; token=$3; grace=$4
` + serviceMembers + `
list=$(members)
term=0
for p in $list; do kill -TERM $p 2>/dev/null && term=$((term+1)); done
end=$(( $(date +%s) + grace ))
while [ -n "$list" ] && [ $(date +%s) -lt $end ]; do sleep 0.2; list=$(members); done
killed=0
n=0
while [ -n "$list" ] && [ $n -lt 10 ]; do
  for p in $list; do kill -KILL $p 2>/dev/null && killed=$((killed+1)); done
  sleep 0.2; list=$(members); n=$((n+1))
done
echo "$term $killed"
[ -z "$list" ] || { echo "still running: $list" >&2; exit 1; }
`

// serviceLogTailScript: $1 log file. Prints its last 4 KiB, unless it is
// not a regular file (a link, a FIFO).
const serviceLogTailScript = `[ -f "$1" ] && [ ! -L "$1" ] && [ ! -L "${1%/*}" ] && tail -c 4096 "$1" 2>/dev/null || true`
