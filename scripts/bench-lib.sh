# Shared by the make bench scripts (sourced): timing, a provider started
# here for its CPU and memory, and table rows. A row is printed and, when
# $BENCH_TABLE is set, recorded there (tab-separated: row, figure, goal,
# met) for make bench's summary table (scripts/bench-table.sh).

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# cpu_ticks PID: user + system CPU of PID so far, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
tick=$(getconf CLK_TCK)

# peak_mib PID: the process's peak resident memory (VmHWM), in MiB.
peak_mib() { awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# start_provider LOG: starts $provider with -debug; sets pid and reattach
# (the TF_REATTACH_PROVIDERS value Terraform uses to reach it).
start_provider() {
	if [ -n "${COUNT_SOCK:-}" ]; then
		DOCKER_HOST=unix://$COUNT_SOCK "$provider" -debug >"$1" 2>&1 &
	else
		"$provider" -debug >"$1" 2>&1 &
	fi
	pid=$!
	reattach=
	for _ in $(seq 100); do
		reattach=$(sed -n "s/^[[:space:]]*TF_REATTACH_PROVIDERS='\(.*\)'\$/\1/p" "$1" | head -n1)
		[ -n "$reattach" ] && return 0
		sleep 0.1
	done
	echo "provider did not start:" >&2
	cat "$1" >&2
	exit 1
}

stop_provider() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=
}

# record ROW FIGURE GOAL MET
record() {
	if [ -n "${BENCH_TABLE:-}" ]; then
		printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$BENCH_TABLE"
	fi
}

# row_ratio LABEL VALUE BASE GOAL: VALUE/BASE seconds as a ratio; met when
# at most GOAL.
row_ratio() {
	local r met
	r=$(awk -v v="$2" -v b="$3" 'BEGIN { printf "%.2f", v / b }')
	met=$(awk -v r="$r" -v g="$4" 'BEGIN { print (r <= g) ? "met" : "not met" }')
	printf '%-62s %8.2f s vs %8.2f s  ratio %6.2fx   goal <= %.2fx  %s\n' "$1" "$2" "$3" "$r" "$4" "$met"
	record "$1" "${r}x (${2} s vs ${3} s)" "<= ${4}x" "$met"
}

# row_value LABEL VALUE UNIT GOAL: met when VALUE is at most GOAL.
row_value() {
	local met
	met=$(awk -v v="$2" -v g="$4" 'BEGIN { print (v <= g) ? "met" : "not met" }')
	printf '%-62s %8s %s   goal <= %s %s  %s\n' "$1" "$2" "$3" "$4" "$3" "$met"
	record "$1" "$2 $3" "<= $4 $3" "$met"
}

# daemon_requests: the Docker API requests the provider has made so far,
# when it was started behind the counting proxy at $COUNT_SOCK (see
# start_dockercount), else nothing.
daemon_requests() {
	[ -n "${COUNT_SOCK:-}" ] && curl -sf --unix-socket "$COUNT_SOCK" http://docker/_count || true
}

# start_dockercount SOCK: starts the counting proxy (scripts/dockercount)
# at SOCK in front of the daemon; the provider start_provider starts then
# talks to the daemon through it.
start_dockercount() {
	local up=${DOCKER_HOST:-unix:///var/run/docker.sock}
	go build -o "$BUILD/bin/dockercount" "$repo/scripts/dockercount"
	"$BUILD/bin/dockercount" "$1" "${up#unix://}" &
	count_pid=$!
	for _ in $(seq 50); do
		[ -S "$1" ] && break
		sleep 0.1
	done
	COUNT_SOCK=$1
}

# terraform_phases DIR LABEL: with a provider started here, `terraform
# apply`, a no-op `plan` and `destroy` of DIR at -parallelism=$P; sets
# t0..t3 (phase boundaries), c0 and c1 (provider CPU ticks around the plan),
# r0 and r1 (its daemon requests around the plan, when counted) and peak
# (its peak memory, MiB). Any failure prints the log's end and exits.
terraform_phases() {
	local dir=$1
	start_provider "$dir/provider.log"
	tf() { TF_REATTACH_PROVIDERS=$reattach "$TF" -chdir="$dir" "$@" -input=false -no-color -parallelism="$P"; }
	t0=$(now)
	tf apply -auto-approve >"$dir/apply.log" 2>&1 || { tail -50 "$dir/apply.log" >&2; exit 1; }
	t1=$(now)
	c0=$(cpu_ticks "$pid")
	r0=$(daemon_requests)
	tf plan -detailed-exitcode >"$dir/plan.log" 2>&1 || { echo "the plan after apply is not empty:" >&2; tail -50 "$dir/plan.log" >&2; exit 1; }
	t2=$(now)
	c1=$(cpu_ticks "$pid")
	r1=$(daemon_requests)
	tf destroy -auto-approve >"$dir/destroy.log" 2>&1 || { tail -50 "$dir/destroy.log" >&2; exit 1; }
	t3=$(now)
	peak=$(peak_mib "$pid")
	stop_provider
}

# scale_rows WHAT N_RES S0 S1 S2 S3 PEAK_LABEL PLAN_BASE DESTROY_BASE N_WS: the
# rows of an evaluation-scale run timed by terraform_phases against a CLI
# loop timed s0..s3 (N_WS workspaces, for the requests per workspace).
scale_rows() {
	row_ratio "apply, $1" "$(secs "$t0" "$t1")" "$(secs "$3" "$4")" 1.3
	row_ratio "no-op plan of them vs ${8}" "$(secs "$t1" "$t2")" "$(secs "$4" "$5")" 1.3
	row_ratio "destroy of them vs ${9}" "$(secs "$t2" "$t3")" "$(secs "$5" "$6")" 1.3
	row_value "provider CPU per resource in that no-op plan ($2 resources)" \
		"$(awk -v a="$c0" -v b="$c1" -v t="$tick" -v r="$2" 'BEGIN { printf "%.2f", (b - a) / t * 1000 / r }')" ms 5
	row_value "provider peak memory, $7" "$peak" MiB 200
	if [ -n "${r0:-}" ] && [ -n "${r1:-}" ]; then
		row_value "daemon requests per workspace in that no-op plan" \
			"$(awk -v a="$r0" -v b="$r1" -v n="${10}" 'BEGIN { printf "%.2f", (b - a) / n }')" requests 2
	fi
}

