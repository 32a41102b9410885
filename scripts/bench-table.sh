#!/usr/bin/env bash
# bench-table.sh TABLE: make bench's summary, one line per recorded row:
# row, figure, goal, met or not met (rows recorded by scripts/bench-lib.sh).
set -euo pipefail
[ -s "$1" ] || { echo "no benchmark rows were recorded in $1" >&2; exit 1; }
echo
echo "== Summary (one run)"
{
	printf 'row\tfigure\tgoal\tmet\n'
	cat "$1"
} | awk -F'\t' '{ printf "%-66s | %-32s | %-12s | %s\n", $1, $2, $3, $4 }'
printf '%d of %d goals met\n' "$(grep -c $'\tmet$' "$1" || true)" "$(wc -l <"$1")"
