#!/usr/bin/env bats
# sudoku-race under faults (issue 29): no answer lost to a dying worker.
# Racer tests with fake workers that die; every test checks that nothing it
# started is left running.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	T=$BATS_TEST_TMPDIR
	paste -d' ' "$DATA/easy9.txt" "$DATA/easy9.solutions" >"$T/answers"
}

@test "a presolver that dies with a queue: every puzzle queued on it is raced again, none unsolved" {
	for i in $(seq 1 10); do cat "$DATA/easy9.txt"; done >"$T/in"
	# one presolver process: it dies after its second answer (once), with
	# the rest of the file queued on it; the other entry would take 30 s
	run --separate-stderr race --stats -j 1 --budget 20 --timeout 10 \
		--presolver "fake-slowpoke:answers=$T/answers:delay=0.01:die-after=2:once=$T/died" \
		--workers "fake-slowpoke:answers=$T/answers:delay=0.01:die-after=2:once=$T/died","$(slowpoke 30)" "$T/in"
	assert_success
	[ -e "$T/died" ]
	printf '%s\n' "${lines[@]}" >"$T/out"
	run verify "$T/in" "$T/out"
	assert_line "30 ok, 0 none, 0 wrong"
	[[ $(summary_of schedule <<<"$stderr") == *"30 puzzles answered by the presolver alone, 0 escalated"* ]]
}

@test "a presolver SIGKILLed in a run of hard puzzles: nothing unsolved" {
	# a run of a few seconds: the hard puzzles ten times over
	local n i
	for i in $(seq 1 10); do
		xz -dc "$top_srcdir/puzzles/9x9/puzzles6_forum_hardest_1106.xz" | grep -v "^#"
	done >"$T/in"
	n=$(wc -l <"$T/in")
	race -j 2 --workers cp,eda --budget 0.001 "$T/in" >"$T/out" 2>"$T/err" &
	local racer=$! pid=
	# a presolver process of this test's racer (awk's status is 0 whatever
	# it finds: the poll goes on under set -e)
	for i in $(seq 1 200); do
		pid=$(leftovers | awk '$2 == "sudoku-cp" { print $1; exit }')
		[ -n "$pid" ] && break
		sleep 0.02
	done
	[ -n "$pid" ]
	sleep 0.1
	kill -KILL "$pid" 2>/dev/null || true
	wait "$racer"
	run verify "$T/in" "$T/out"
	assert_line "$n ok, 0 none, 0 wrong"
}
