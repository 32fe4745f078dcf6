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
