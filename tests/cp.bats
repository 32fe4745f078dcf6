#!/usr/bin/env bats
# sudoku-cp beyond the conformance suite: the 9x9 bitboard path (cp9.c)
# against the general path (--no-fast: cp.c + propagate.c), counting, its
# options, and the general path on 16x16 and 25x25.

bats_require_minimum_version 1.5.0
load helpers

# solve_requests FILE PREFIX [FIELDS]: the puzzles of FILE as protocol
# requests "solve PREFIXn PUZZLE FIELDS".
solve_requests() {
	grep -v '^#' "$1" | awk -v id="$2" -v fields="${3:-}" '{ print "solve " id NR " " $0 (fields ? " " fields : "") }'
}

@test "the 9x9 path solves hard and 17-clue puzzles, with answers that verify" {
	run sudoku-cp "$DATA/cp9-unique.txt"
	assert_success
	assert_equal "${#lines[@]}" 60
	echo "$output" >"$BATS_TEST_TMPDIR/fast"
	run verify "$DATA/cp9-unique.txt" "$BATS_TEST_TMPDIR/fast"
	assert_line "60 ok, 0 none, 0 wrong"
}

@test "the 9x9 path and the general path (--no-fast) give the same answers" {
	sudoku-cp "$DATA/cp9-unique.txt" >"$BATS_TEST_TMPDIR/fast"
	sudoku-cp --no-fast "$DATA/cp9-unique.txt" >"$BATS_TEST_TMPDIR/general"
	run cmp "$BATS_TEST_TMPDIR/fast" "$BATS_TEST_TMPDIR/general"
	assert_success
}

# nodes FILE: the sum of the node counts of the protocol answers in FILE
nodes() {
	grep -Eo 'nodes=[0-9]+' "$1" | awk -F= '{ s += $2 } END { print s + 0 }'
}

@test "the 9x9 path searches fewer nodes than the paper's BS on the general path" {
	# locked candidates and its branching order: on hard puzzles a fraction
	# of the plain search's nodes, for the same answers
	solve_requests "$DATA/cp9-unique.txt" u >"$BATS_TEST_TMPDIR/requests"
	sudoku-cp --protocol <"$BATS_TEST_TMPDIR/requests" >"$BATS_TEST_TMPDIR/fast"
	sudoku-cp --no-fast --restart-nodes=0 --protocol <"$BATS_TEST_TMPDIR/requests" >"$BATS_TEST_TMPDIR/general"
	run grep -c '^solution u' "$BATS_TEST_TMPDIR/fast"
	assert_output 60
	fast=$(nodes "$BATS_TEST_TMPDIR/fast") general=$(nodes "$BATS_TEST_TMPDIR/general")
	echo "nodes: 9x9 path $fast, general path $general"
	[ "$fast" -gt 0 ]
	[ $((fast * 3)) -lt $((general * 2)) ]
	diff <(cut -d' ' -f1-3 "$BATS_TEST_TMPDIR/fast") <(cut -d' ' -f1-3 "$BATS_TEST_TMPDIR/general")
}

@test "the 9x9 path solves magictour and serg puzzles and counts them as the general path does" {
	# serg_benchmark's puzzles have hundreds of solutions each: the first
	# found depends on the branching order, the count does not
	run sudoku-cp "$DATA/cp9-sets.txt"
	assert_success
	echo "$output" >"$BATS_TEST_TMPDIR/fast"
	run verify "$DATA/cp9-sets.txt" "$BATS_TEST_TMPDIR/fast"
	assert_line "20 ok, 0 none, 0 wrong"
	run sudoku-cp --count=100000 "$DATA/cp9-sets.txt"
	echo "$output" >"$BATS_TEST_TMPDIR/fast-count"
	run grep -c '^# multiple solutions: [0-9]' "$BATS_TEST_TMPDIR/fast-count"
	assert_output 10
	sudoku-cp --no-fast --count=100000 "$DATA/cp9-sets.txt" >"$BATS_TEST_TMPDIR/general-count" || true
	run diff "$BATS_TEST_TMPDIR/fast-count" "$BATS_TEST_TMPDIR/general-count"
	assert_success
}

@test "--count is exact on both paths: 0, 2, and hundreds of solutions" {
	run sudoku-cp --count=1000 "$DATA/cp9-count.txt"
	assert_failure 1
	diff <(echo "$output") "$DATA/cp9-count.expected"
	run sudoku-cp --no-fast --count=1000 "$DATA/cp9-count.txt"
	assert_failure 1
	diff <(echo "$output") "$DATA/cp9-count.expected"
}

@test "--count stops at the limit and names it" {
	run sudoku-cp --count=50 "$DATA/cp9-count.txt"
	assert_failure 1
	assert_line --index 0 "# multiple solutions: at least 50"
	assert_line --index 10 "# unsat"
	assert_line --index 15 "# multiple solutions: 2"
	# a unique puzzle is printed with --count
	run sudoku-cp --count "$DATA/cp9-unique.txt"
	assert_success
	assert_equal "${#lines[@]}" 60
}

@test "the 9x9 path stops at the time limit while counting" {
	# the empty grid has some 6.7e21 solutions: counting them never ends
	run sudoku-cp --count=1000000000000 --time-limit 0.5 <<<"$(printf '.%.0s' {1..81})"
	assert_failure 1
	assert_output "# timeout after 0.5 s"
}

@test "protocol: the 9x9 path acknowledges a cancel mid-search" {
	start_session sudoku-cp --protocol
	expect_line '^hello '
	send "solve e $(printf '.%.0s' {1..81}) count=1000000000000 progress_ms=20"
	# the search running (its progress says so), not a fixed sleep
	expect_line '^progress e ' 10
	cancel_within e 1000
}

@test "progress of the 9x9 path names depth, filled cells and nodes" {
	run --separate-stderr sudoku-cp --progress --progress-ms 50 --count=1000000000000 --time-limit 0.5 \
		<<<"$(printf '.%.0s' {1..81})"
	assert_failure 1
	[[ $stderr =~ depth=[0-9]+\ filled=[0-9]+/81\ nodes=[0-9]+ ]]
}

@test "the general path solves 16x16 and 25x25 puzzles, with answers that verify" {
	run sudoku-cp "$top_srcdir/puzzles/acs-16x16-45.txt" "$DATA/16x16.txt" "$DATA/25x25.txt"
	assert_success
	echo "$output" >"$BATS_TEST_TMPDIR/out"
	cat "$top_srcdir/puzzles/acs-16x16-45.txt" "$DATA/16x16.txt" "$DATA/25x25.txt" >"$BATS_TEST_TMPDIR/in"
	run verify "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	assert_line --regexp '^[0-9]+ ok, 0 none, 0 wrong$'
}

@test "the general path counts on 4x4 and 16x16 as the 9x9 path does on 9x9" {
	# a 4x4 with one given has 72 solutions of the 288 4x4 grids
	run sudoku-cp --count=1000 <<<"1..............."
	assert_failure 1
	assert_output "# multiple solutions: 72"
	run sudoku-cp --count=1000 <<<"................"
	assert_output "# multiple solutions: 288"
	run sudoku-cp --no-fast --count=1000 <<<"$(printf '.%.0s' {1..16})"
	assert_output "# multiple solutions: 288"
}

@test "options: --no-fast and --restart-nodes are listed; bad values are usage errors" {
	run sudoku-cp --help
	assert_success
	assert_output --partial "--[no-]fast"
	assert_output --partial "--restart-nodes=N"
	run sudoku-cp --restart-nodes=-1 "$DATA/easy9.txt"
	assert_failure 2
	run sudoku-cp --restart-nodes=lots "$DATA/easy9.txt"
	assert_failure 2
	run sudoku-cp --no-fast --restart-nodes=0 "$DATA/easy9.txt"
	assert_success
	diff <(echo "$output") "$DATA/easy9.solutions"
}

@test "bench-cp9 times sudoku-cp against qqwing on each set, with answers checked" {
	command -v qqwing >/dev/null || skip "qqwing is not installed"
	bench="$top_srcdir/contrib/bench/bench-cp9"
	run "$bench" --help
	assert_success
	assert_output --partial "--baseline-limit N"
	run awk 'length > 80' <<<"$output"
	assert_output ""
	# four small sets under the names of the real ones
	sets="$BATS_TEST_TMPDIR/sets"
	mkdir "$sets"
	grep -v '^#' "$DATA/cp9-unique.txt" | head -n 5 >"$sets/puzzles2_17_clue"
	grep -v '^#' "$DATA/cp9-unique.txt" | tail -n 5 >"$sets/puzzles5_forum_hardest_1905_11+"
	grep -v '^#' "$DATA/cp9-sets.txt" | head -n 5 >"$sets/puzzles3_magictour_top1465"
	grep -v '^#' "$DATA/cp9-sets.txt" | tail -n 5 >"$sets/puzzles7_serg_benchmark"
	run "$bench" -d "$sets" -B "$top_builddir" -n 1 -b 3 -q
	assert_success
	assert_line --index 0 --regexp '^set +puzzles +cp_us +qqwing_n +qqwing_us +ratio +target'
	assert_line --index 1 --regexp '^17_clue +5 +[0-9.]+ +3 +[0-9.]+ +[0-9.]+x +36x'
	assert_line --index 2 --regexp '^forum_hardest_1905_11\+ +5 .* 130x'
	assert_line --index 3 --regexp '^magictour_top1465 +5 .* 75x'
	assert_line --index 4 --regexp '^serg_benchmark +5 .* 130x'
	# a missing set is named
	rm "$sets/puzzles7_serg_benchmark"
	run "$bench" -d "$sets" -B "$top_builddir" -n 1 -q -s serg_benchmark
	assert_failure 2
	assert_output --partial "no set serg_benchmark in $sets"
}
