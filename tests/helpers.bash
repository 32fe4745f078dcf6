# Shared by the bats suites: libraries, test data, leak checks.
# shellcheck shell=bash

bats_load_library bats-support
bats_load_library bats-assert

: "${top_srcdir:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
DATA="$top_srcdir/tests/data"
VERIFY="$top_builddir/tests/verify-answers"

# Every process a test starts carries this tag in its environment, so that
# teardown can find whatever is left of it (and only of it: suites may run
# in parallel).
leak_setup() {
	export SRACE_TEST_TAG="t$$.$BATS_TEST_NUMBER.$RANDOM"
}

# Every test starts tagged and ends with no program of its own left
# running; a suite that needs more defines its own setup or teardown.
setup() {
	leak_setup
}

teardown() {
	end_session
	assert_no_leftovers
}

# Lists leftover processes of this test (our programs and the fakes).
leftovers() {
	local pid comm
	for pid in $(grep -l -a -s "SRACE_TEST_TAG=$SRACE_TEST_TAG" /proc/[0-9]*/environ 2>/dev/null |
		cut -d/ -f3); do
		[ "$pid" = "$$" ] && continue
		comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
		case $comm in
		sudoku-* | fake-* | lt-sudoku-*) echo "$pid $comm" ;;
		esac
	done
}

# Fails when a program or worker of this test is still running 2 s later.
assert_no_leftovers() {
	local left i
	for i in $(seq 1 40); do
		left=$(leftovers)
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	echo "left running: $left" >&2
	# do not leak into the next test either
	for p in $(echo "$left" | cut -d' ' -f1); do kill -9 "$p" 2>/dev/null || true; done
	return 1
}

# poll SECONDS COMMAND...: runs COMMAND every 50 ms until it succeeds, for
# SECONDS at most (then it fails). What a fixed sleep would only hope for:
# a test waits for a condition, however slow or fast the machine. COMMAND
# runs as an `if`'s condition: under bats's set -e a try that fails (a
# grep that finds nothing yet) does not end the test.
poll() {
	local t=$1 end
	shift
	end=$((SECONDS + t))
	while :; do
		if "$@"; then
			return 0
		fi
		if [ $SECONDS -gt $end ]; then
			echo "poll: '$*' did not succeed within $t s" >&2
			return 1
		fi
		sleep 0.05
	done
}

# catches PID SIGNAL...: whether process PID has a handler of its own for
# each SIGNAL (INT, TERM, WINCH...), as SigCgt in /proc/PID/status says. A
# signal sent before that is lost or ends the process unheard: SIGTERM has
# its default effect, SIGWINCH is ignored, and so is SIGINT in a background
# job of a shell without job control (bats's, script(1)'s).
catches() {
	local pid=$1 mask sig n
	shift
	mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null) || return 1
	[ -n "$mask" ] || return 1
	for sig in "$@"; do
		n=$(kill -l "$sig") || return 1
		if (((16#$mask >> (n - 1)) & 1)); then :; else return 1; fi
	done
}

# running COMM...: whether a process of this test (leftovers) by each name
# COMM (a worker, a fake) is running.
running() {
	local left comm
	left=$(leftovers)
	for comm in "$@"; do
		if ! grep -q " $comm\$" <<<"$left"; then
			return 1
		fi
	done
}

# said_hello COMM: a process of this test named COMM has written something
# (a worker's first line is its hello), as its wchar in /proc says
said_hello() {
	local pid bytes
	for pid in $(leftovers | awk -v c="$1" '$2 == c { print $1 }'); do
		bytes=$(sed -n 's/^wchar: //p' "/proc/$pid/io" 2>/dev/null) || continue
		if [ "${bytes:-0}" -gt 0 ]; then
			return 0
		fi
	done
	return 1
}

# feed_after FILE COMMAND...: FILE's first line, then the rest of it once
# COMMAND succeeds (poll, 10 s at most; the rest comes then all the same).
# A racer's standard input, < <(feed_after ...): its first puzzle starts
# the workers, and the others wait for what the test needs of the race
# (a worker's hello, a line on stderr), not for a fixed time.
feed_after() {
	local file=$1
	shift
	head -n 1 "$file"
	poll 10 "$@" || true
	tail -n +2 "$file"
}

# run_files COMMAND...: as bats's run --separate-stderr (status, output,
# stderr), with the caller's standard input (a feed_after, say) and the
# output in files on the way ($T/out, $T/err), which a feed may watch.
run_files() {
	status=0
	"$@" >"$T/out" 2>"$T/err" || status=$?
	output=$(cat "$T/out") stderr=$(cat "$T/err")
}

# Standard input's --help with each option's wrapped lines (those indented
# to the help column, 25) joined to the option's, one option a line.
unwrap_help() {
	awk '/^                         / { sub(/^ +/, " "); printf "%s", $0; next }
		NR > 1 { print "" } { printf "%s", $0 } END { print "" }'
}

# verify PUZZLES ANSWERS: checks answers with the project's own verification.
verify() {
	"$VERIFY" "$1" "$2"
}

# A protocol session: starts "$@" as a coprocess W.
# send LINE... writes lines; expect_line REGEX [TIMEOUT] reads until a line
# matches (other lines are kept in $seen), failing after TIMEOUT seconds.
start_session() {
	coproc W { exec "$@" 2>"$BATS_TEST_TMPDIR/stderr"; }
	W_PID=$W_PID
	W_IN=${W[1]}
	W_OUT=${W[0]}
}

send() {
	local l
	for l in "$@"; do printf '%s\n' "$l" >&"$W_IN"; done
}

# expect_line REGEX [SECONDS]: the next line matching REGEX, in $line.
expect_line() {
	local re=$1 t=${2:-10} deadline rc partial=
	deadline=$((SECONDS + t))
	seen=()
	while [ $SECONDS -le $deadline ]; do
		rc=0
		IFS= read -r -t 1 line <&"$W_OUT" || rc=$?
		if [ $rc -gt 128 ]; then
			# bash reads a pipe a byte at a time: a timeout may come
			# inside a line, and what it read of it is in $line
			partial+=$line
			continue
		fi
		line=$partial$line
		partial=
		if [ $rc -ne 0 ]; then
			echo "end of output while waiting for /$re/; seen: ${seen[*]}" >&2
			return 1
		fi
		if [[ $line =~ $re ]]; then
			return 0
		fi
		seen+=("$line")
	done
	echo "no line matching /$re/ within $t s; seen: ${seen[*]}" >&2
	return 1
}

# cancel_within ID MS [ALSO]: sends "cancel ID" and reads the search's
# answer (progress lines skipped), in $line; succeeds when it is "cancelled
# ID", or matches the regex ALSO (an answer that may win the race with the
# cancel), within MS milliseconds.
cancel_within() {
	local id=$1 ms=$2 also=${3:-} start elapsed_ms
	start=$(date +%s%N)
	send "cancel $id"
	expect_line "^(cancelled|solution|unsat|gaveup|count|error) $id( |\$)" 5 || return 1
	elapsed_ms=$((($(date +%s%N) - start) / 1000000))
	echo "cancel $id: acknowledged after $elapsed_ms ms: ${line:0:60}"
	[[ $line == "cancelled $id" || (-n $also && $line =~ $also) ]] || return 1
	[ "$elapsed_ms" -lt "$ms" ]
}

end_session() {
	if [ -n "${W_PID:-}" ]; then
		exec {W_IN}>&- 2>/dev/null || true
		kill "$W_PID" 2>/dev/null || true
		wait "$W_PID" 2>/dev/null || true
		W_PID=
	fi
}

# For the racer's suites (they set T and write "$T/answers"):
# stat_of WORKER COLUMN: a figure of one of --stats' tables (read on
# stdin): the table whose header has COLUMN. A label too wide for its table
# has a line of its own, its figures on the next.
stat_of() {
	awk -v w="$1" -v c="$2" '
		$1 == "worker" { split("", col); for (i = 1; i <= NF; i++) col[$i] = i; label = ""; next }
		!(c in col) { next }
		NF == 1 && /^[^ ]/ { label = $1; next }
		/^ / && label != "" { if (label == w) print $(col[c] - 1); label = ""; next }
		$1 == w { print $(col[c]) }'
}

# summary_of TOPIC: a summary line of --stats (read on stdin), "TOPIC: ...",
# its wrapped lines joined (with no space after a line of 80 columns: a word
# longer than a line was cut there)
summary_of() {
	awk -v t="sudoku-race: $1" '
		index($0, t) == 1 { s = $0; on = 1; w = length($0); next }
		on && /^             [^ ]/ { n = length($0); sub(/^ +/, w == 80 ? "" : " "); s = s $0; w = n; next }
		{ on = 0 }
		END { print s }'
}

# last_message: the last message of the racer's on stdin ("sudoku-race:
# ..." and the lines it was wrapped onto, joined by a space), CRs dropped.
# For messages of words shorter than a line (the summary: its labels are
# cut to 48 characters), which are wrapped at words only.
last_message() {
	tr -d '\r' | awk '
		/^sudoku-race: / { s = $0; next }
		/^             [^ ]/ && s != "" { sub(/^ +/, " "); s = s $0; next }
		END { print s }'
}

# slowpoke_answers: $T/answers, the "PUZZLE SOLUTION" lines of the easy
# puzzles that slowpoke's entries answer from (a suite's setup writes it)
slowpoke_answers() {
	paste -d' ' "$DATA/easy9.txt" "$DATA/easy9.solutions" >"$T/answers"
}

# slowpoke [DELAY]: a well-behaved worker entry that answers after DELAY s
slowpoke() {
	echo "fake-slowpoke:answers=$T/answers:delay=${1:-0.2}"
}

# SUDOKU_RACE_WRAP (CI's Valgrind pass): a command put before every
# sudoku-race the tests run, in subshells too.
if [ -n "${SUDOKU_RACE_WRAP:-}" ]; then
	sudoku-race() {
		# shellcheck disable=SC2086
		$SUDOKU_RACE_WRAP "$(type -P sudoku-race)" "$@"
	}
	export -f sudoku-race
fi

# Skips a test that needs the racer's own process (its pid, signals, exit
# status by signal) or its timing, under SUDOKU_RACE_WRAP.
skip_if_wrapped() {
	[ -z "${SUDOKU_RACE_WRAP:-}" ] || skip "$1 (not under SUDOKU_RACE_WRAP)"
}

# race ARGS...: the racer without a cache
race() {
	sudoku-race --no-cache "$@"
}

# utf8_json_lines FILE: every line of FILE is a JSON object in valid UTF-8
# (decoded strictly: Python's own stdin, in the C locale, lets bad bytes
# through as surrogates, and jq replaces them); prints each object's "file"
# and "reason" with what is not printable ASCII escaped.
utf8_json_lines() {
	python3 -c 'import json, sys
for raw in open(sys.argv[1], "rb"):
    o = json.loads(raw.decode("utf-8"))
    assert isinstance(o, dict)
    print(ascii(o.get("file")), ascii(o.get("reason")))' "$1"
}
