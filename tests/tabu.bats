#!/usr/bin/env bats
# sudoku-tabu beyond the conformance suite: seeds, the AC3 pre-processing,
# tries and restarts, the iteration and time limits, the options. Every run
# has a seed and a time limit, so each is reproducible and bounded.

bats_require_minimum_version 1.5.0
load helpers

ESCARGOT=1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..
# No solution, but AC3 on the givens does not show it: tries end and restart.
UNSAT9=.....5.8....6.1.43..........1.5........1.6...3.......553.....61........4.........
# AC3 on the givens alone empties the domain of row 1 column 1.
UNSAT4=.21434.221434321

tabu() {
	sudoku-tabu --time-limit 60 "$@"
}

# The effort fields of a --summary line on stderr, without the time.
effort() {
	sed -n 's/^sudoku-tabu: .*\(iteration=[0-9]* cost=[0-9]* restarts=[0-9]*\).*/\1/p' <<<"$1"
}

@test "solves one puzzle of each qqwing level, answers verified" {
	run tabu --seed 3 "$DATA/qqwing9.txt"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$DATA/qqwing9.txt" "$BATS_TEST_TMPDIR/out"
	assert_line "4 ok, 0 none, 0 wrong"
	run diff "$BATS_TEST_TMPDIR/out" "$DATA/qqwing9.solutions"
	assert_success
}

@test "the same seed gives the same search, another seed another" {
	run --separate-stderr tabu --seed 11 --summary <<<"$ESCARGOT"
	assert_success
	first=$(effort "$stderr")
	[[ $first == iteration=* ]]
	run --separate-stderr tabu --seed 11 --summary <<<"$ESCARGOT"
	assert_success
	assert_equal "$(effort "$stderr")" "$first"
	run --separate-stderr tabu --seed 12 --summary <<<"$ESCARGOT"
	assert_success
	[ "$(effort "$stderr")" != "$first" ]
}

@test "AC3 pre-processing alone solves a puzzle of naked singles: no iteration" {
	run --separate-stderr tabu --seed 1 --summary < <(sed -n 3p "$DATA/qqwing9.txt")
	assert_success
	assert_output "$(head -n 1 "$DATA/qqwing9.solutions")"
	[[ $stderr == *"iteration=0 cost=0 restarts=0"* ]]
}

@test "AC3 pre-processing that empties a domain: '# gave up: unsat' at once" {
	run --separate-stderr tabu --seed 1 --summary <<<"$UNSAT4"
	assert_failure 1
	assert_output "# gave up: unsat"
	[[ $stderr == *"iteration=0 "* ]]
}

@test "AI Escargot needs several tries, and the summary counts the restarts" {
	run --separate-stderr tabu --seed 1 --summary <<<"$ESCARGOT"
	assert_success
	assert_output "162857493534129678789643521475312986913586742628794135356478219241935867897261354"
	[[ $stderr =~ restarts=([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
}

@test "progress shows the iteration, the cost and the restarts as they happen" {
	start_session sudoku-tabu --protocol --seed 1
	expect_line '^hello tabu '
	send "solve h $UNSAT9 progress_ms=20"
	expect_line '^progress h iteration=[0-9]+ cost=[0-9]+ best=[0-9]+ restarts=[1-9][0-9]*$' 20
	send "cancel h"
	expect_line '^cancelled h$' 2
}

@test "--max-iterations: the limit gives '# gave up: iterations', exit 1" {
	run tabu --seed 1 --max-iterations 3 <<<"$ESCARGOT"
	assert_failure 1
	assert_output "# gave up: iterations"
}

@test "--max-iterations in protocol mode: gaveup with the reason iterations" {
	start_session sudoku-tabu --protocol --seed 1 --max-iterations 3
	expect_line '^hello '
	send "solve e $ESCARGOT"
	expect_line '^(gaveup|solution) e' 10
	[[ $line == "gaveup e iterations ms="* ]]
}

@test "--try-iterations 0: one try, which gives up once no move is acceptable" {
	run --separate-stderr tabu --seed 1 --try-iterations 0 --summary < <(head -n 1 "$DATA/easy9.txt")
	assert_failure 1
	assert_output "# gave up: stuck"
	[[ $stderr =~ cost=([0-9]+)\ restarts=0 ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
}

@test "--time-limit: a puzzle out of reach ends in time with '# gave up'" {
	start=$SECONDS
	run sudoku-tabu --seed 1 --time-limit 0.5 "$DATA/hard25.txt"
	assert_failure 1
	assert_output "# gave up after 0.5 s"
	[ $((SECONDS - start)) -lt 10 ]
}

@test "options: tabu list size, candidate list, ranking, try length, moves still solve" {
	for opts in "--tabu-size 0" "--tabu-size 100" "--candidates 1" "--candidates 20" \
		"--candidates 0" "--rank move" "--rank move --candidates 5" "--try-iterations 100000" \
		"--try-iterations 50" "--moves any" "--moves empty"; do
		# shellcheck disable=SC2086
		run tabu --seed 2 $opts "$DATA/qqwing9.txt"
		assert_success
		assert_output "$(cat "$DATA/qqwing9.solutions")"
	done
}

@test "bad option values are usage errors" {
	run --separate-stderr sudoku-tabu --tabu-size -1 "$DATA/qqwing9.txt"
	assert_failure 2
	[[ $stderr == *"--tabu-size"* ]]
	run --separate-stderr sudoku-tabu --try-iterations many "$DATA/qqwing9.txt"
	assert_failure 2
	[[ $stderr == *"--try-iterations"* ]]
	run --separate-stderr sudoku-tabu --moves some "$DATA/qqwing9.txt"
	assert_failure 2
	[[ $stderr == *"empty|any"* ]]
	run --separate-stderr sudoku-tabu --rank best "$DATA/qqwing9.txt"
	assert_failure 2
	[[ $stderr == *"ac3|move"* ]]
}

@test "larger grids: 16x16 and 25x25" {
	run tabu --seed 1 "$DATA/16x16.txt" "$DATA/25x25.txt"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	cat "$DATA/16x16.txt" "$DATA/25x25.txt" >"$BATS_TEST_TMPDIR/in"
	run verify "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	assert_line "2 ok, 0 none, 0 wrong"
}
