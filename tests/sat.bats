#!/usr/bin/env bats
# sudoku-sat beyond the conformance suite: 9x9 answers, counting by
# blocking clauses, its encodings and options, and large grids.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	command -v sudoku-sat >/dev/null || skip "sudoku-sat is not built (configure --with-cadical)"
	leak_setup
}

@test "solves hard and 17-clue 9x9 puzzles, with answers that verify" {
	run sudoku-sat "$DATA/cp9-unique.txt"
	assert_success
	assert_equal "${#lines[@]}" 60
	echo "$output" >"$BATS_TEST_TMPDIR/answers"
	run verify "$DATA/cp9-unique.txt" "$BATS_TEST_TMPDIR/answers"
	assert_line "60 ok, 0 none, 0 wrong"
}

@test "--count is exact by blocking clauses: 0, 2, and hundreds of solutions" {
	run sudoku-sat --count=1000 "$DATA/cp9-count.txt"
	assert_failure 1
	diff <(echo "$output") "$DATA/cp9-count.expected"
}

@test "--count stops at the limit and names it; a unique puzzle is printed" {
	run sudoku-sat --count=50 <<<"$(printf '.%.0s' {1..81})"
	assert_failure 1
	assert_output "# multiple solutions: at least 50"
	run sudoku-sat --count "$DATA/qqwing9.txt"
	assert_success
	diff <(echo "$output") "$DATA/qqwing9.solutions"
}

@test "no solution: Norvig's impossible puzzle, and one that propagation refutes" {
	run sudoku-sat <<<".....5.8....6.1.43..........1.5........1.6...3.......553.....61........4........."
	assert_failure 1
	assert_output "# unsat"
	run sudoku-sat --count <<<".....5.8....6.1.43..........1.5........1.6...3.......553.....61........4........."
	assert_output "# unsat"
	run sudoku-sat "$DATA/unsat9.txt"
	assert_failure 1
	assert_output "# unsat"
}

@test "every encoding counts the 288 4x4 grids and the 9x9 counts exactly" {
	local opts
	for opts in "" "--amo=pair" "--amo=seq" "--amo=auto --pairwise-max=3" "--no-presolve" \
		"--no-presolve --amo=seq" "--mode=sat" "--mode=unsat --no-phase"; do
		# shellcheck disable=SC2086
		run sudoku-sat $opts --count=1000 <<<"$(printf '.%.0s' {1..16})"
		assert_output "# multiple solutions: 288"
		# shellcheck disable=SC2086
		run sudoku-sat $opts --count=1000 <<<"1..............."
		assert_output "# multiple solutions: 72"
		# shellcheck disable=SC2086
		run sudoku-sat $opts --count=1000 "$DATA/cp9-count.txt"
		diff <(echo "$output") "$DATA/cp9-count.expected"
	done
}

@test "solves 16x16 to 64x64 puzzles, with answers that verify" {
	cat "$DATA/16x16.txt" "$DATA/25x25.txt" "$DATA/36x36.txt" "$DATA/gpu-64x64.txt" \
		"$DATA/sat-36x36.txt" >"$BATS_TEST_TMPDIR/in"
	run sudoku-sat "$BATS_TEST_TMPDIR/in"
	assert_success
	echo "$output" >"$BATS_TEST_TMPDIR/out"
	run verify "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	assert_line --regexp '^[0-9]+ ok, 0 none, 0 wrong$'
	# and without the presolve, which leaves the solver more to do
	run sudoku-sat --no-presolve "$DATA/sat-36x36.txt"
	assert_success
	echo "$output" >"$BATS_TEST_TMPDIR/out"
	run verify "$DATA/sat-36x36.txt" "$BATS_TEST_TMPDIR/out"
	assert_line --regexp '^[0-9]+ ok, 0 none, 0 wrong$'
}

@test "--time-limit stops CaDiCaL mid-search" {
	run sudoku-sat --seed 1 --time-limit 0.5 "$DATA/sat-hard.txt"
	assert_failure 1
	assert_output "# timeout after 0.5 s"
}

@test "--progress reports the solver's conflicts, fixed variables and cells" {
	run --separate-stderr sudoku-sat --seed 1 --progress --progress-ms 50 --time-limit 0.5 \
		"$DATA/sat-hard.txt"
	assert_failure 1
	[[ $stderr =~ conflicts=[0-9]+\ fixed=[0-9]+/[0-9]+\ cells=[0-9]+/2401\ found=0 ]]
}

@test "protocol: a cancel stops CaDiCaL, and a count is cancelled between solutions" {
	start_session sudoku-sat --protocol
	expect_line '^hello sat .*kind=complete sizes=2-8'
	send "solve h $(cat "$DATA/sat-hard.txt") seed=1 progress_ms=20"
	# the search running (its progress says so), not a fixed sleep
	expect_line '^progress h ' 10
	cancel_within h 1000
	send "solve e $(printf '.%.0s' {1..81}) count=1000000000000 progress_ms=20"
	expect_line '^progress e ' 10
	cancel_within e 1000
}

@test "the same seed gives the same solution of an open grid" {
	local empty
	empty=$(printf '.%.0s' {1..256})
	run sudoku-sat --seed 5 <<<"$empty"
	local first=$output
	run sudoku-sat --seed 5 <<<"$empty"
	assert_output "$first"
}

@test "options are listed; bad values are usage errors" {
	run sudoku-sat --help
	assert_success
	assert_output --partial "--amo=auto|pair|seq"
	assert_output --partial "--[no-]presolve"
	run sudoku-sat --amo=ladder "$DATA/easy9.txt"
	assert_failure 2
	run sudoku-sat --pairwise-max=1 "$DATA/easy9.txt"
	assert_failure 2
	run sudoku-sat --mode=fast "$DATA/easy9.txt"
	assert_failure 2
}
