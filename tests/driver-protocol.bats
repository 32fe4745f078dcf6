#!/usr/bin/env bats
# The worker driver's protocol mode and stop checks beyond the conformance
# suite: each stop check (cancel, the time limit, quit) ends a search, and
# the request queue (its id set, its bound) keeps pings fast. Through
# sudoku-spin (tests/spin.c), whose search ends only when the driver stops
# it, so that no test depends on a puzzle staying hard.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	SPIN="$top_builddir/tests/sudoku-spin"
	P4=$(head -n 1 "$DATA/4x4.txt")
}

# waits until file $1 has a line matching $2 (at most 10 s)
wait_for_line() {
	local i
	for i in $(seq 1 200); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "no line /$2/ in $1:" >&2
	cat "$1" >&2
	return 1
}

@test "stop: --time-limit ends a search in filter mode" {
	run "$SPIN" --time-limit 0.2 "$DATA/4x4.txt"
	assert_failure 1
	assert_output "# timeout after 0.2 s"
}

@test "stop: limit_ms ends a search in protocol mode" {
	start_session "$SPIN" --protocol
	expect_line '^hello spin '
	send "solve t $P4 limit_ms=100"
	expect_line '^(gaveup|solution|unsat|cancelled|error) t( |$)' 5
	[[ $line =~ ^gaveup\ t\ timeout\ ms=[0-9.]+$ ]]
}

@test "stop: cancel ends the running search, and the worker goes on" {
	start_session "$SPIN" --protocol
	expect_line '^hello spin '
	send "solve c $P4 progress_ms=10"
	expect_line '^progress c nodes=[0-9]+$' 5
	send "cancel c"
	expect_line '^(gaveup|solution|unsat|cancelled|error) c( |$)' 5
	assert_equal "$line" "cancelled c"
	send "solve d $P4 limit_ms=50"
	expect_line '^gaveup d timeout ' 5
}

@test "stop: quit ends the running search and the worker, and nothing more is sent" {
	mkfifo "$BATS_TEST_TMPDIR/in"
	"$SPIN" --protocol <"$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out" &
	pid=$!
	exec {to}>"$BATS_TEST_TMPDIR/in"
	printf 'solve q %s progress_ms=10\n' "$P4" >&"$to"
	wait_for_line "$BATS_TEST_TMPDIR/out" '^progress q '
	printf 'quit\n' >&"$to"
	for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	run kill -0 "$pid"
	assert_failure
	rc=0
	wait "$pid" || rc=$?
	exec {to}>&-
	[ "$rc" -eq 0 ]
	# hello and progress lines only: no final message after quit
	run grep -v -e '^hello spin ' -e '^progress q nodes=[0-9]*$' "$BATS_TEST_TMPDIR/out"
	assert_output ""
}

@test "queue: a ping is answered at once behind 40,000 queued solves" {
	# h ends after 10 s; a ping read only after that comes after h's
	# answer (the queue's id check was a scan of it: 24 to 30 s for the
	# 40,000 here on the old driver, against 0.15 to 0.9 s now)
	{
		echo "solve h $P4 limit_ms=10000"
		awk -v p="$P4" 'BEGIN { for (i = 1; i <= 40000; i++) print "solve e" i " " p }'
		echo "ping x"
	} >"$BATS_TEST_TMPDIR/in"
	start_session "$SPIN" --protocol
	expect_line '^hello spin '
	start=$(date +%s%N)
	cat "$BATS_TEST_TMPDIR/in" >&"$W_IN"
	expect_line '^pong x$' 20
	echo "pong after $((($(date +%s%N) - start) / 1000000)) ms"
	# nothing came before it: h still searching, the rest queued
	assert_equal "${#seen[@]}" 0
	send "cancel h"
	expect_line '^(cancelled|gaveup) h( |$)' 5
	assert_equal "$line" "cancelled h"
	send "quit"
}

@test "queue: past its bound of 65,536 requests a solve gets 'error ID queue full' at once" {
	start_session "$SPIN" --protocol
	expect_line '^hello spin '
	# h runs (its progress says so), 65,536 wait behind it, two more do not fit
	send "solve h $P4 progress_ms=100"
	expect_line '^progress h ' 5
	awk -v p="$P4" 'BEGIN { for (i = 1; i <= 65538; i++) print "solve q" i " " p }' >&"$W_IN"
	send "ping full"
	expect_line '^pong full$' 20
	errors=$(printf '%s\n' "${seen[@]}" | grep -v '^progress h ' || true)
	assert_equal "$errors" "error q65537 queue full: 65536 requests are waiting
error q65538 queue full: 65536 requests are waiting"
	# a cancel makes room (and finds the job in constant time)
	send "cancel q40000" "solve r $P4" "ping room"
	expect_line '^pong room$' 10
	assert_equal "$(printf '%s\n' "${seen[@]}" | grep -v '^progress h ')" "cancelled q40000"
	send "quit"
}

@test "queue: solves taken to be solved next are still cancelled at once, and answered once" {
	start_session "$SPIN" --protocol
	expect_line '^hello spin '
	# one write: the solver takes h and the two behind it from the queue together
	printf 'solve h %s progress_ms=50\nsolve a %s limit_ms=50\nsolve b %s\n' "$P4" "$P4" "$P4" >&"$W_IN"
	expect_line '^progress h ' 5
	send "cancel b"
	expect_line '^(cancelled|gaveup|solution|error) [ab]( |$)' 5
	assert_equal "$line" "cancelled b"
	# h still runs, and a waits behind it
	assert_equal "$(printf '%s\n' "${seen[@]}" | grep -v '^progress h ')" ""
	send "cancel h"
	expect_line '^(cancelled|gaveup) h( |$)' 5
	assert_equal "$line" "cancelled h"
	expect_line '^(gaveup|solution|error|cancelled) [ab]( |$)' 5
	[[ $line == "gaveup a timeout "* ]]
	send "ping end"
	expect_line '^pong end$' 5
	assert_equal "$(printf '%s\n' "${seen[@]}" | grep -v '^progress h ')" ""
	# the ids are free again
	send "solve b $P4 limit_ms=20"
	expect_line '^(gaveup|error) b ' 5
	[[ $line == "gaveup b timeout "* ]]
}

@test "queue: under a stream of cancels every solve gets exactly one final answer" {
	# 3,000 solves, a cancel of one of the last 40 after about a third of
	# them (queued, taken to be solved next, running or answered by then)
	awk -v seed=7 'NR == FNR { if ($1 !~ /^#/ && NF) p[n++] = $1; next } END {
		srand(seed)
		for (i = 0; i < 3000; i++) {
			print "solve s" i " " p[i % n]
			if (rand() < 0.3) print "cancel s" int(i - rand() * 40)
		}
	}' "$DATA/cp9-unique.txt" /dev/null >"$BATS_TEST_TMPDIR/in"
	"$top_builddir/workers/sudoku-cp" --protocol <"$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out"
	run awk '$1 ~ /^(solution|cancelled|unsat|gaveup|error)$/ { n[$2]++ }
		END { for (i = 0; i < 3000; i++) if (n["s" i] != 1) bad++; print bad + 0 }' "$BATS_TEST_TMPDIR/out"
	assert_output "0"
	run grep -c '^cancelled ' "$BATS_TEST_TMPDIR/out"
	[ "$output" -gt 0 ]
}

@test "queue: an id in flight is refused in its turn; once answered it may come again" {
	start_session "$SPIN" --protocol
	expect_line '^hello spin '
	send "solve d $P4 limit_ms=300" "solve d $P4"
	expect_line '^gaveup d timeout ' 5
	expect_line '^error d ' 5
	assert_equal "$line" "error d duplicate id"
	send "solve d $P4 limit_ms=50"
	expect_line '^(gaveup|error) d ' 5
	[[ $line == "gaveup d timeout "* ]]
}

@test "batches: each stop ends a batch search; a cancel of one of a batch is acknowledged at once" {
	BATCH="$top_builddir/tests/sudoku-spin-batch"
	run "$BATCH" --time-limit 0.2 "$DATA/4x4.txt" "$DATA/4x4.txt"
	assert_failure 1
	assert_output $'# timeout after 0.2 s\n# timeout after 0.2 s'
	start_session "$BATCH" --protocol
	expect_line '^hello spin-batch .* batch=4 bulk=1$'
	# four at once: two solving threads take them in one batch or more
	printf 'solve %s %s progress_ms=20\n' a "$P4" b "$P4" c "$P4" d "$P4" >&"$W_IN"
	expect_line '^progress ' 5
	send "cancel a"
	expect_line '^(cancelled|gaveup|error) a' 5
	assert_equal "$line" "cancelled a"
	send "cancel b" "cancel c" "cancel d"
	# in the order the two solving threads acknowledge them
	local acks=()
	for _ in b c d; do
		expect_line '^(cancelled|gaveup|error) [bcd]' 5
		acks+=("$line")
	done
	assert_equal "$(printf '%s\n' "${acks[@]}" | sort | paste -sd,)" "cancelled b,cancelled c,cancelled d"
	send "solve t $P4 limit_ms=100"
	expect_line '^(cancelled|gaveup|error) t' 5
	[[ $line == "gaveup t timeout "* ]]
	send "solve q $P4" "quit"
}
