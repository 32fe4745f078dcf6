#!/bin/sh
# sudoku-race-many (contrib/many-machines.sh in the source tree): one batch
# of puzzles over many machines that share one Redis cache (docs/cache.md,
# contrib/parallel/README.md). GNU parallel runs a racer per block
# of the input on the hosts of an --sshloginfile, every racer on the same
# --cache redis://..., so that no puzzle is solved twice, and the answers come
# out in input order, with the input's own line numbers in '#' lines and
# --json (each racer is told where its block starts: --line-offset).
# Run with --help. `make install` installs it as sudoku-race-many, with the
# version put in below.
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

prog=${0##*/}
# the version and bug address: put in by make; from configure.ac when this
# runs from the source tree
version='@VERSION@'
bugs='@PACKAGE_BUGREPORT@'
case $version in
@*)
	ac=$(dirname "$0")/../configure.ac
	version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$ac" 2>/dev/null) || :
	bugs=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$ac" 2>/dev/null) || :
	;;
esac

help() {
	cat <<EOF
Usage: $prog [OPTION]... PUZZLES [-- RACER-ARGS...]
Solves the file PUZZLES on many machines that share one Redis cache: GNU
parallel runs a sudoku-race per block of LINES lines on the hosts of HOSTFILE,
every racer on the same --cache redis://..., so that no puzzle is solved
twice. The answers come out on standard output in input order, with the
input's own line numbers in '#' lines and --json; each racer's messages go to
standard error. RACER-ARGS are given to every racer.

Options:
  -S HOSTFILE    the hosts, one a line, as GNU parallel's --sshloginfile
                 ("4/host1" runs 4 racers there, ":" is this machine);
                 default: this machine alone
  -C, --cache URL  the shared cache, an address every host reaches:
                 redis://[[USER:]PASSWORD@]HOST[:PORT][/DB][?required=1]
                 (default: \$SUDOKU_RACE_CACHE); a password in
                 \$REDISCLI_AUTH goes to the hosts in their environment,
                 not on the racers' command lines
  -n LINES       lines per block (default 1000)
  -w DIR         the run's folder: blocks, job log, each block's answers
                 (default PUZZLES.run)
  -x RACER       the racer on the hosts (default: sudoku-race on their PATH)
  -r             resume a run cut short: the blocks the job log says are
                 done are not run again
  -h, --help     show this help and exit
  -V, --version  show the version and exit

Exit status: the worst of the racers': 0 when every puzzle was solved, 1 when
any was not, 2 for usage or system errors (or a block that was not run).
EOF
}

version() {
	echo "$prog (sudoku-race) ${version:-unknown}"
	echo "Copyright (C) 2026 the sudoku-race authors. License: MIT (the LICENSE file)."
	echo "Report bugs to: ${bugs:-the sudoku-race project}"
}

usage_error() {
	echo "$prog: $1" >&2
	echo "Try '$prog --help' for more information." >&2
	exit 2
}

# the GNU long options, before getopts (which knows short ones only):
# --cache (as sudoku-race says it) becomes -C; -c, its old spelling here,
# still works. The arguments go round once, rewritten.
n=$#
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	case $a in
	--)
		set -- "$@" --
		while [ "$n" -gt 0 ]; do set -- "$@" "$1"; shift; n=$((n - 1)); done
		;;
	--help) help; exit 0 ;;
	--version) version; exit 0 ;;
	--cache=*) set -- "$@" -C "${a#--cache=}" ;;
	--cache)
		[ "$n" -ge 1 ] || usage_error "--cache needs a value"
		set -- "$@" -C "$1"
		shift
		n=$((n - 1))
		;;
	--?*) usage_error "unknown option $a" ;;
	*) set -- "$@" "$a" ;;
	esac
done
while getopts :S:C:c:n:w:x:rhV opt; do
	case $opt in
	S) hosts=$OPTARG ;;
	C | c) url=$OPTARG ;;
	n) lines=$OPTARG ;;
	w) work=$OPTARG ;;
	x) racer=$OPTARG ;;
	r) resume=--resume ;;
	h) help; exit 0 ;;
	V) version; exit 0 ;;
	:) usage_error "-$OPTARG needs a value" ;;
	*) usage_error "unknown option -$OPTARG" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage_error "no PUZZLES file"
input=$1
shift
[ "${1:-}" != -- ] || shift
case $lines in '' | *[!0-9]* | 0) echo "$prog: -n: '$lines' is not a number of lines" >&2; exit 2 ;; esac
case $url in
redis://*) ;;
'') echo "$prog: no shared cache: give --cache=redis://HOST[:PORT][/DB] or set SUDOKU_RACE_CACHE" >&2; exit 2 ;;
*) echo "$prog: --cache: '$url' is not a redis:// URL" >&2; exit 2 ;;
esac
[ -r "$input" ] || { echo "$prog: $input: cannot read it" >&2; exit 2; }
command -v parallel >/dev/null || { echo "$prog: GNU parallel is needed (Debian: parallel)" >&2; exit 2; }
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
	echo "$prog: -r: $work holds no run to resume" >&2
	exit 2
fi
cd "$work"
mkdir -p out

# Each racer's arguments, quoted for the remote shell; the URL too (a
# password in it may hold a quote).
extra=
for a in "$@"; do
	extra="$extra '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done
qurl=$(printf '%s' "$url" | sed "s/'/'\\\\''/g")

# Every job runs; its exit status is in the job log (read below).
# (A block is the racer's standard input: its messages then name no file.)
# The cache's password, when REDISCLI_AUTH holds it, goes to the hosts in
# their environment (parallel --env), not on the racers' command lines.
parallel --will-cite ${hosts:+--sshloginfile "$hosts" --transferfile '{1}' --cleanup} \
	${REDISCLI_AUTH:+--env REDISCLI_AUTH} \
	--colsep '\t' -a blocks.tsv --keep-order --joblog joblog $resume --results 'out/{#}' \
	"$racer --cache '$qurl' --line-offset {2}$extra < {1}" >/dev/null || true

# The answers in input order, and each racer's messages.
status=0
n=0
while IFS="$(printf '\t')" read -r block offset; do
	n=$((n + 1))
	if [ ! -f "out/$n" ]; then
		echo "$prog: $block (lines from $((offset + 1))) was not run" >&2
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
