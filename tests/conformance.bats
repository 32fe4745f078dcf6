#!/usr/bin/env bats
# The worker conformance suite: what every sudoku-* worker must do, in
# filter mode and in protocol mode (PROTOCOL.md). Run per worker by
# tests/run-conformance with WORKER (program) and WORKER_ARGS (options).
# Stochastic workers run with a fixed seed and a time limit.
# WORKER_DATA (optional) is a folder whose files replace those of
# tests/data with the same names, for this worker only.

bats_require_minimum_version 1.5.0
load helpers
if [ -n "${WORKER_DATA:-}" ]; then
	DATA=$BATS_FILE_TMPDIR/data
fi

setup_file() {
	: "${WORKER:?WORKER is not set}"
	local hello
	# shellcheck disable=SC2086
	hello=$("$WORKER" $WORKER_ARGS --protocol </dev/null | head -n 1)
	export HELLO="$hello"
	case $hello in
	*kind=complete*) export KIND=complete ;;
	*) export KIND=stochastic ;;
	esac
	local sizes=${hello##*sizes=}
	sizes=${sizes%% *}
	export MAX_BOX=${sizes#*-}
	if [ -n "${WORKER_DATA:-}" ]; then
		mkdir -p "$DATA"
		cp "$top_srcdir"/tests/data/* "$DATA"/
		cp "$WORKER_DATA"/* "$DATA"/
	fi
}

# The tests that need a search that lasts use hard25.txt, a 25x25 puzzle
# no worker finishes quickly; a worker that takes no 25x25 skips them.
need_hard25() {
	[ "$MAX_BOX" -ge 5 ] || skip "the worker takes box sizes up to $MAX_BOX"
}

# w ARGS...: the worker with its suite options (a seed and a time limit for
# stochastic workers, so that every run is reproducible and bounded).
w() {
	if [ "$KIND" = stochastic ]; then
		# shellcheck disable=SC2086
		"$WORKER" $WORKER_ARGS --seed 1 --time-limit 60 "$@"
	else
		# shellcheck disable=SC2086
		"$WORKER" $WORKER_ARGS "$@"
	fi
}

@test "--help describes the program and exits 0" {
	run w --help
	assert_success
	assert_output --partial "Usage: $WORKER"
	assert_output --partial "--protocol"
	assert_output --partial "--time-limit"
	assert_output --partial "Exit status"
}

@test "--version prints the name and version" {
	run w --version
	assert_success
	assert_output --regexp "^$WORKER \(sudoku-race\) [0-9]+\.[0-9]+"
}

@test "an unknown option is a usage error: exit 2, a message on stderr" {
	run --separate-stderr w --frobnicate
	assert_failure 2
	assert_equal "$output" ""
	[[ $stderr == *"--frobnicate"* ]]
}

@test "filter mode: solves 9x9 puzzles, one line each, in order, exit 0" {
	run w "$DATA/easy9.txt"
	assert_success
	assert_equal "${#lines[@]}" 3
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$DATA/easy9.txt" "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line "3 ok, 0 none, 0 wrong"
	# unique puzzles: the one solution
	run diff "$BATS_TEST_TMPDIR/out" "$DATA/easy9.solutions"
	assert_success
}

@test "filter mode: reads standard input, and '-'" {
	run bash -c "w() { $(declare -f w | tail -n +2); }; KIND=$KIND WORKER=$WORKER; head -n 1 '$DATA/easy9.txt' | w -"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "notation: one line with '.' blanks" {
	run w "$DATA/notation-dots.txt"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "notation: one line with '0' blanks" {
	run w "$DATA/notation-zeros.txt"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "notation: a block grid with | + - rules" {
	run w "$DATA/notation-block.txt"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "notation: nine rows of nine characters" {
	run w "$DATA/notation-compact.txt"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "notation: numbers on one line answer in numbers" {
	run w "$DATA/notation-numbers.txt"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions" | sed 's/./& /g; s/ $//')"
}

@test "notation: rows of numbers answer in numbers" {
	run w "$DATA/notation-rows.txt"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions" | sed 's/./& /g; s/ $//')"
}

@test "notation: an ACS instance file (order, 1, TAB-separated rows, CRLF)" {
	run w "$DATA/notation-acs.txt"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions" | sed 's/./& /g; s/ $//')"
}

@test "notation: 4x4" {
	run w "$DATA/4x4.txt"
	assert_success
	assert_output "1324423124133142"
}

@test "notation: 16x16 with letters answers with letters" {
	[ "$MAX_BOX" -ge 4 ] || skip "the worker takes box sizes up to $MAX_BOX"
	run w "$DATA/16x16.txt"
	assert_success
	[[ $output == *G* ]]
	echo "$output" >"$BATS_TEST_TMPDIR/out"
	run verify "$DATA/16x16.txt" "$BATS_TEST_TMPDIR/out"
	assert_line "1 ok, 0 none, 0 wrong"
}

@test "notation: 16x16 hex style answers in hex" {
	[ "$MAX_BOX" -ge 4 ] || skip "the worker takes box sizes up to $MAX_BOX"
	run w "$DATA/16x16-hex.txt"
	assert_success
	[[ $output == *0* && $output != *G* ]]
	echo "$output" >"$BATS_TEST_TMPDIR/out"
	run verify "$DATA/16x16-hex.txt" "$BATS_TEST_TMPDIR/out"
	assert_line "1 ok, 0 none, 0 wrong"
}

@test "bad input: one '#' line per bad puzzle, the others solved, exit 1" {
	good=$(head -n 1 "$DATA/easy9.txt")
	{
		echo "$good"
		echo "${good:0:80}"
		echo "${good:0:80}!"
		echo "44${good:2}"
		echo "$good"
	} >"$BATS_TEST_TMPDIR/in"
	run w "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	assert_equal "${#lines[@]}" 5
	assert_equal "${lines[0]}" "$(head -n 1 "$DATA/easy9.solutions")"
	assert_equal "${lines[1]}" "# invalid: $BATS_TEST_TMPDIR/in: line 2: 80 cells, expected 81"
	assert_equal "${lines[2]}" "# invalid: $BATS_TEST_TMPDIR/in: line 3: illegal character '!' at row 9, column 9"
	assert_equal "${lines[3]}" "# unsat: $BATS_TEST_TMPDIR/in: line 4: value 4 twice in row 1 (row 1 column 1, row 1 column 2)"
	assert_equal "${lines[4]}" "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "bad input: a 1 MB line is refused quickly, and the next puzzle is solved" {
	{
		head -c 1048576 /dev/zero | tr '\0' '.'
		echo
		head -n 1 "$DATA/easy9.txt"
	} >"$BATS_TEST_TMPDIR/in"
	run w "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	assert_equal "${lines[0]}" "# invalid: $BATS_TEST_TMPDIR/in: line 1: longer than 65536 bytes"
	assert_equal "${lines[1]}" "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "bad input: binary garbage gives '#' lines, never a crash" {
	head -c 4096 /dev/urandom >"$BATS_TEST_TMPDIR/in" || true
	run w "$BATS_TEST_TMPDIR/in"
	[ "$status" -le 1 ]
	for l in "${lines[@]}"; do [[ $l == "#"* ]]; done
}

@test "a missing file is a system error: exit 2, named on stderr" {
	run --separate-stderr w /nonexistent/puzzles.txt
	assert_failure 2
	[[ $stderr == *"/nonexistent/puzzles.txt"* ]]
}

@test "--count: a unique puzzle prints its solution" {
	[ "$KIND" = complete ] || skip "counting needs a complete worker"
	run w --count "$DATA/easy9.txt"
	assert_success
	assert_output "$(cat "$DATA/easy9.solutions")"
}

@test "--count: several solutions give '# multiple solutions', exit 1" {
	[ "$KIND" = complete ] || skip "counting needs a complete worker"
	run w --count <<<"8.........95.......76.........426798...571243...893165......916....3.487....1.532"
	assert_failure 1
	assert_output --regexp "^# multiple solutions"
}

@test "--count: no solution gives '# unsat', exit 1" {
	[ "$KIND" = complete ] || skip "counting needs a complete worker"
	# unsat9.txt: a puzzle whose cell (1,1) has no value left
	run w --count "$DATA/unsat9.txt"
	assert_failure 1
	assert_output "# unsat"
}

@test "--count on a stochastic worker is a usage error" {
	[ "$KIND" = stochastic ] || skip "complete workers count"
	run w --count "$DATA/easy9.txt"
	assert_failure 2
}

@test "--time-limit: a puzzle out of reach ends with a '#' line in time" {
	need_hard25
	run w --time-limit 0.3 "$DATA/hard25.txt"
	assert_failure 1
	assert_output --regexp "^# (timeout after 0.3 s|gave up)"
}

@test "protocol: hello first, with its capabilities" {
	run bash -c "$WORKER $WORKER_ARGS --protocol </dev/null"
	assert_success
	assert_line --index 0 --regexp "^hello ${WORKER#sudoku-} [0-9.]+ proto=1 kind=(complete|stochastic) sizes=[2-8]-[2-8] device=(cpu|gpu|none)( |$)"
}

@test "protocol: ping is answered with pong" {
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol
	expect_line '^hello '
	send "ping abc"
	expect_line '^pong abc$'
}

@test "protocol: a solve gets a verified solution" {
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol --seed 1
	expect_line '^hello '
	send "solve p1 $(head -n 1 "$DATA/easy9.txt")"
	expect_line '^(solution|error|gaveup) p1'
	[[ $line == "solution p1 $(head -n 1 "$DATA/easy9.solutions")"* ]]
}

@test "protocol: pipelined solves are answered in order, a bad one costs only itself" {
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol --seed 1
	expect_line '^hello '
	mapfile -t p <"$DATA/easy9.txt"
	send "solve a ${p[0]}" "solve b ${p[1]:0:80}" "solve c ${p[1]}" "solve d 44${p[2]:2}" "solve e ${p[2]}"
	finals=()
	for i in 1 2 3 4 5; do
		expect_line '^(solution|unsat|count|gaveup|cancelled|error) '
		finals+=("$line")
	done
	[[ ${finals[0]} == "solution a "* ]]
	[[ ${finals[1]} == "error b invalid puzzle: 80 cells, expected 81" ]]
	[[ ${finals[2]} == "solution c "* ]]
	[[ ${finals[3]} == "unsat d reason=clash" || ${finals[3]} == "gaveup d unsat" ]]
	[[ ${finals[4]} == "solution e "* ]]
}

@test "protocol: count=2 answers with count" {
	[ "$KIND" = complete ] || skip "counting needs a complete worker"
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol
	expect_line '^hello '
	send "solve u $(head -n 1 "$DATA/easy9.txt") count=2" \
		"solve m 8.........95.......76.........426798...571243...893165......916....3.487....1.532 count=2" \
		"solve z $(cat "$DATA/unsat9.txt") count=2"
	expect_line '^count u '
	[[ $line == "count u 1 $(head -n 1 "$DATA/easy9.solutions")"* ]]
	expect_line '^count m '
	[[ $line == "count m 2 "* ]]
	expect_line '^count z '
	[[ $line == "count z 0"* ]]
}

@test "protocol: cancel of the running search is acknowledged within the grace" {
	need_hard25
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol --seed 1
	expect_line '^hello '
	send "solve h $(cat "$DATA/hard25.txt") progress_ms=20"
	# the search running (its progress says so), not a fixed sleep
	expect_line '^progress h ' 10
	# generous: the racer's grace is a few hundred ms; CI machines are slow
	cancel_within h 1000
	send "ping after"
	expect_line '^pong after$'
}

@test "protocol: cancel of a queued solve is acknowledged at once" {
	need_hard25
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol --seed 1
	expect_line '^hello '
	send "solve h $(cat "$DATA/hard25.txt")" "solve q $(head -n 1 "$DATA/easy9.txt")" "cancel q"
	expect_line '^cancelled q$' 2
	send "cancel h"
	expect_line '^cancelled h$' 2
}

@test "protocol: progress lines while searching, when asked" {
	need_hard25
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol --seed 1
	expect_line '^hello '
	send "solve h $(cat "$DATA/hard25.txt") progress_ms=20"
	expect_line '^progress h ' 5
	[[ $line =~ ^progress\ h(\ [a-z_]+=[^ ]+)+$ ]]
	send "cancel h"
	expect_line '^cancelled h$' 2
}

@test "protocol: ping is answered during a search" {
	need_hard25
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol --seed 1
	expect_line '^hello '
	send "solve h $(cat "$DATA/hard25.txt") progress_ms=20"
	# the search running (its progress says so), not a fixed sleep
	expect_line '^progress h ' 10
	send "ping busy"
	expect_line '^pong busy$' 1
	send "cancel h"
	expect_line '^cancelled h$' 2
}

@test "protocol: a time limit ends with gaveup timeout" {
	need_hard25
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol --seed 1
	expect_line '^hello '
	send "solve t $(cat "$DATA/hard25.txt") limit_ms=200"
	expect_line '^(gaveup|solution|unsat|error) t' 5
	[[ $line == "gaveup t timeout"* ]]
}

@test "protocol: quit mid-search exits 0 promptly" {
	need_hard25
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol --seed 1
	expect_line '^hello '
	# before the quit: bash unsets W_PID as soon as the coprocess is reaped
	pid=$W_PID
	send "solve h $(cat "$DATA/hard25.txt") progress_ms=20"
	# the search running (its progress says so), not a fixed sleep
	expect_line '^progress h ' 10
	send "quit"
	for i in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	run kill -0 "$pid"
	assert_failure
	rc=0
	wait "$pid" || rc=$?
	W_PID=
	[ "$rc" -eq 0 ]
}

@test "protocol: unknown messages are ignored, malformed lines get 'error -'" {
	# shellcheck disable=SC2086
	start_session "$WORKER" $WORKER_ARGS --protocol
	expect_line '^hello '
	send "frobnicate 1 2 3" "solve" "ping ok"
	expect_line '^error - '
	expect_line '^pong ok$'
	[ "${#seen[@]}" -eq 0 ]
}

@test "protocol: end of input finishes the queued work, then exits" {
	run bash -c "printf 'solve a %s\nsolve b %s\n' \$(head -n 2 '$DATA/easy9.txt') | $WORKER $WORKER_ARGS --protocol --seed 1"
	assert_success
	assert_line --index 1 --regexp '^solution a '
	assert_line --index 2 --regexp '^solution b '
}

# Bulk frames (PROTOCOL.md 13), through the tests' encoder and decoder
# (tests/bulk-frame): "frame ID:GRID..." lines in, a solutions frame's
# records out as "solution ID GRID ..." lines.
BULK="$top_builddir/tests/bulk-frame"

# bulk_run LINES: the worker's session on LINES, frames decoded
bulk_run() {
	local kind_args=
	[ "$KIND" = stochastic ] && kind_args="--seed 1 --time-limit 60"
	printf '%s\n' "$@" | "$BULK" encode >"$BATS_TEST_TMPDIR/in"
	# shellcheck disable=SC2086
	"$WORKER" $WORKER_ARGS $kind_args --protocol <"$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/raw"
	"$BULK" decode <"$BATS_TEST_TMPDIR/raw"
}

@test "bulk: hello says bulk=1; a frame's solves are answered in turn, in a frame" {
	mapfile -t p <"$DATA/easy9.txt"
	mapfile -t s <"$DATA/easy9.solutions"
	run bulk_run "frame 5:${p[0]} 6:${p[1]}" "solve 7 ${p[2]}" "frame 8:${p[2]}"
	assert_success
	assert_line --index 0 --regexp ' bulk=1$'
	assert_line --index 1 --regexp "^solution 5 ${s[0]} nodes=[0-9]+ ms=[0-9.]+$"
	assert_line --index 2 --regexp "^solution 6 ${s[1]} "
	assert_line --index 3 --regexp "^solution 7 ${s[2]}( |$)"
	assert_line --index 4 --regexp "^solution 8 ${s[2]} "
	assert_equal "${#lines[@]}" 5
	# the framed ones in frames, the line's answer a line
	assert_equal "$(grep -a -c '^solutions  *[12] 9$' "$BATS_TEST_TMPDIR/raw")" 2
	assert_equal "$(grep -a -c 'solution 7 ' "$BATS_TEST_TMPDIR/raw")" 1
}

@test "bulk: a bad record, a clash, a bad field cost only their own request" {
	mapfile -t p <"$DATA/easy9.txt"
	run bulk_run "frame 1:${p[0]} 2:*${p[1]:1} 3:44${p[2]:2} 4:${p[1]}" "frame 9:${p[0]} limit_ms=x"
	assert_success
	assert_line --index 1 --regexp '^solution 1 '
	assert_line --index 2 "error 2 invalid puzzle: cell 1 (row 1, column 1) is 255, over 9"
	assert_line --index 3 --regexp '^(unsat 3 reason=clash|gaveup 3 unsat)$'
	assert_line --index 4 --regexp '^solution 4 '
	assert_line --index 5 --regexp '^error 9 bad field value: limit_ms=x'
	assert_equal "${#lines[@]}" 6
}

@test "bulk: a head it cannot read, or a frame cut short: 'error -', and its input ends there" {
	# ('error -' is about no request: it may come before answers in turn;
	# the lines of the input are counted without the records)
	mapfile -t p <"$DATA/easy9.txt"
	run bulk_run "frame 1:${p[0]}" "solves x 9" "solve 2 ${p[1]}"
	assert_success
	assert_line --regexp '^solution 1 '
	assert_line "error - line 2: solves x: not a count from 1 to 1024; the rest of the input is not read"
	assert_equal "${#lines[@]}" 3
	run bulk_run "frame 1:${p[0]}" "cut 3 2:${p[1]}"
	assert_success
	assert_line --regexp '^solution 1 '
	assert_line --regexp '^solution 2 '
	assert_line "error - line 2: the frame ends at record 2 of 3"
	assert_equal "${#lines[@]}" 4
	# a record with id 0 names no request
	run bulk_run "frame 0:${p[0]} 3:${p[1]}"
	assert_success
	assert_line "error - line 1: record 1 has id 0"
	assert_line --regexp '^solution 3 '
	assert_equal "${#lines[@]}" 3
}

@test "bulk: a framed solve queued behind a search is cancelled at once" {
	need_hard25
	local kind_args=
	[ "$KIND" = stochastic ] && kind_args="--seed 1"
	start_session bash -c "'$BULK' encode | $WORKER $WORKER_ARGS $kind_args --protocol | '$BULK' decode"
	expect_line '^hello '
	send "solve 1 $(cat "$DATA/hard25.txt")" "frame 2:$(head -n 1 "$DATA/easy9.txt") 3:$(head -n 1 "$DATA/easy9.txt")" "cancel 3"
	expect_line '^cancelled 3$' 2
	send "cancel 2" "cancel 1"
	# in either order: the reader answers the queued one, the solver the
	# search it stops, and on a loaded machine the solver can be first
	# (an ASan make check once saw "cancelled 1" before "cancelled 2")
	expect_line '^cancelled [12]$' 2
	local first=$line
	expect_line '^cancelled [12]$' 2
	[ "$line" != "$first" ]
}
