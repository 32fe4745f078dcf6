#!/bin/sh
# One batch of puzzles over many machines that share one Redis cache
# (README "Many machines"): GNU parallel runs a racer per block of the input
# on the hosts of an --sshloginfile, every racer on the same
# --cache redis://..., so that no puzzle is solved twice, and the answers
# come out in input order, with the input's own line numbers in '#' lines
# and --json (each racer is told where its block starts: --line-offset).
#
# usage: contrib/many-machines.sh [-S HOSTFILE] [-c URL] [-n LINES] [-w DIR]
#                                 [-x RACER] [-r] PUZZLES [-- RACER-ARGS...]
#   -S HOSTFILE  the hosts, one a line, as GNU parallel's --sshloginfile
#                ("4/host1" runs 4 racers there, ":" is this machine);
#                default: this machine alone
#   -c URL       the shared cache, redis://HOST[:PORT][/DB], an address every
#                host reaches (default: $SUDOKU_RACE_CACHE)
#   -n LINES     lines per block (default 1000)
#   -w DIR       the run's folder: blocks, job log, each block's answers
#                (default PUZZLES.run)
#   -x RACER     the racer on the hosts (default sudoku-race on their PATH)
#   -r           resume a run cut short: the blocks the job log says are
#                done are not run again
# Answers go to standard output, each racer's messages to standard error.
# Exit status: the worst of the racers' (0 all solved, 1 some not, 2 an
# error or a block not run).
#
# Why blocks in files rather than parallel --pipe-part: a piped job cannot
# be told where its block starts, and GNU parallel's --resume (20221122)
# hands a piped job another block than the one it had (a rerun job 3 got
# block 1). Block files, given to parallel as arguments (--transferfile
# copies each to its host), keep the job numbers, the line offsets and
# --resume exact.
set -eu

hosts=
url=${SUDOKU_RACE_CACHE:-}
lines=1000
work=
racer=sudoku-race
resume=

usage() {
	sed -n '9,20p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while getopts S:c:n:w:x:rh opt; do
	case $opt in
	S) hosts=$OPTARG ;;
	c) url=$OPTARG ;;
	n) lines=$OPTARG ;;
	w) work=$OPTARG ;;
	x) racer=$OPTARG ;;
	r) resume=--resume ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
input=$1
shift
[ "${1:-}" != -- ] || shift
case $lines in '' | *[!0-9]* | 0) echo "$0: -n: '$lines' is not a number of lines" >&2; exit 2 ;; esac
case $url in
redis://*) ;;
'') echo "$0: no shared cache: give -c redis://HOST[:PORT][/DB] or set SUDOKU_RACE_CACHE" >&2; exit 2 ;;
*) echo "$0: -c: '$url' is not a redis:// URL" >&2; exit 2 ;;
esac
[ -r "$input" ] || { echo "$0: $input: cannot read it" >&2; exit 2; }
command -v parallel >/dev/null || { echo "$0: GNU parallel is needed (Debian: parallel)" >&2; exit 2; }
[ -n "$work" ] || work=$input.run
# the jobs run in the run's folder (here) or a host's home: a relative racer
# is made absolute
case $racer in
*/*) [ ! -d "$(dirname "$racer")" ] || racer=$(cd "$(dirname "$racer")" && pwd)/$(basename "$racer") ;;
esac
[ -z "$hosts" ] || hosts=$(cd "$(dirname "$hosts")" && pwd)/$(basename "$hosts")

if [ -z "$resume" ]; then
	rm -rf "$work"
	mkdir -p "$work/blocks"
	# block K (from 0) holds lines K*LINES+1 ...: its racer's --line-offset
	split -l "$lines" -d -a 6 --additional-suffix=.txt "$input" "$work/blocks/"
	for f in "$work"/blocks/*.txt; do
		k=$(basename "$f" .txt)
		num=${k#"${k%%[!0]*}"} # without its leading zeros (not octal)
		printf 'blocks/%s.txt\t%s\n' "$k" "$((${num:-0} * lines))"
	done >"$work/blocks.tsv"
elif [ ! -f "$work/blocks.tsv" ]; then
	echo "$0: -r: $work holds no run to resume" >&2
	exit 2
fi
cd "$work"
mkdir -p out

# Each racer's arguments, quoted for the remote shell.
extra=
for a in "$@"; do
	extra="$extra '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done

# Every job runs; its exit status is in the job log (read below).
# (A block is the racer's standard input: its messages then name no file.)
parallel --will-cite ${hosts:+--sshloginfile "$hosts" --transferfile '{1}' --cleanup} \
	--colsep '\t' -a blocks.tsv --keep-order --joblog joblog $resume --results 'out/{#}' \
	"$racer --cache '$url' --line-offset {2}$extra < {1}" >/dev/null || true

# The answers in input order, and each racer's messages.
status=0
n=0
while IFS="$(printf '\t')" read -r block offset; do
	n=$((n + 1))
	if [ ! -f "out/$n" ]; then
		echo "$0: $block (lines from $((offset + 1))) was not run" >&2
		status=2
		continue
	fi
	cat "out/$n"
	[ ! -s "out/$n.err" ] || cat "out/$n.err" >&2
done <blocks.tsv
# the worst exit status of each block's last run (a signal, or a racer
# that could not run: 2)
worst=$(awk -F'\t' 'NR > 1 { v[$1] = $8 != 0 || $7 > 2 ? 2 : $7 }
	END { m = 0; for (k in v) if (v[k] > m) m = v[k]; print m }' joblog)
[ "$worst" -le "$status" ] || status=$worst
exit "$status"
