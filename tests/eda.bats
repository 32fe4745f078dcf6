#!/usr/bin/env bats
# sudoku-eda (RESEDA, seeds/reseda-eda.txt) beyond the conformance suite:
# the paper's options, reproducibility, progress, bounded runs. Every run has
# a fixed seed; runs that could go on have a time limit or a resolution
# limit. The puzzles are the paper's own (puzzles/examples.txt).

bats_require_minimum_version 1.5.0
load helpers

EDA=sudoku-eda

setup() {
	leak_setup
	EXAMPLES="$top_srcdir/puzzles/examples.txt"
	# the paper's figures 3.1, 3.2 and 4.1, and AI Escargot (figure 5.1)
	EASY=$(grep -A1 'figure 3.1' "$EXAMPLES" | tail -n 1)
	MEDIUM=$(grep -A1 'figure 3.2' "$EXAMPLES" | tail -n 1)
	HARD=$(grep -A1 'figure 4.1' "$EXAMPLES" | tail -n 1)
	ESCARGOT=$(grep -A1 'figure 5.1' "$EXAMPLES" | tail -n 1)
	printf '%s\n' "$EASY" "$MEDIUM" "$HARD" >"$BATS_TEST_TMPDIR/paper.txt"
}

# solves FILE with ARGS and checks every answer with the project's verifier
solves_all() {
	local file=$1
	shift
	run "$EDA" --time-limit 60 "$@" "$file"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$file" "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line "$(wc -l <"$file" | tr -d ' ') ok, 0 none, 0 wrong"
}

# one protocol solve of PUZZLE with ARGS; the final line minus its wall time
protocol_answer() {
	local puzzle=$1
	shift
	printf 'solve x %s\n' "$puzzle" | "$EDA" --protocol "$@" | grep -E '^(solution|gaveup) x' |
		sed 's/ ms=[0-9.]*//'
}

@test "the paper's defaults solve its easy, medium and hard puzzles" {
	solves_all "$BATS_TEST_TMPDIR/paper.txt" --seed 1
}

@test "same seed, same run: the samples drawn agree; another seed differs" {
	a=$(protocol_answer "$HARD" --seed 7)
	b=$(protocol_answer "$HARD" --seed 7)
	c=$(protocol_answer "$HARD" --seed 8)
	[[ $a == "solution x "*" nodes="* ]]
	assert_equal "$a" "$b"
	[ "${a##* nodes=}" != "${c##* nodes=}" ]
}

@test "seed= in the protocol is the same as --seed" {
	a=$(protocol_answer "$HARD" --seed 7)
	b=$(printf 'solve x %s seed=7\n' "$HARD" | "$EDA" --protocol --seed 99 | grep '^solution x' |
		sed 's/ ms=[0-9.]*//')
	assert_equal "$a" "$b"
}

@test "--sampling=precompute solves (cells drawn one by one)" {
	solves_all "$BATS_TEST_TMPDIR/paper.txt" --seed 2 --sampling=precompute
}

@test "--sampling=permutations solves (blocks drawn as permutations)" {
	solves_all "$BATS_TEST_TMPDIR/paper.txt" --seed 3 --sampling=permutations
}

@test "--sampling=both, the default, solves" {
	solves_all "$BATS_TEST_TMPDIR/paper.txt" --seed 4 --sampling=both
}

@test "--zones=none|3|9|27 each solve the hard puzzle" {
	echo "$HARD" >"$BATS_TEST_TMPDIR/hard.txt"
	for z in none 3 9 27; do
		solves_all "$BATS_TEST_TMPDIR/hard.txt" --seed 5 --zones=$z
	done
}

@test "partial restarts happen: progress counts them, and resolutions" {
	# AI Escargot is out of reach of one resolution; 27 zones make many restarts
	run --separate-stderr "$EDA" --seed 1 --zones=27 --cycles=1 --progress --progress-ms=10 <<<"$ESCARGOT"
	assert_failure 1
	assert_output "# gave up: no-solution-in-1-resolutions"
	last=$(grep -o 'restarts=[0-9]*' <<<"$stderr" | tail -n 1)
	[ "${last#restarts=}" -ge 1 ]
	[[ $stderr != *"cycles=2"* ]]
}

@test "--zones=none: a resolution is a single attempt, no restart" {
	run --separate-stderr "$EDA" --seed 1 --zones=none --cycles=10 --progress --progress-ms=10 <<<"$ESCARGOT"
	assert_failure 1
	assert_output "# gave up: no-solution-in-10-resolutions"
	[[ $stderr == *"restarts=0 cycles="* ]]
	[[ $stderr != *"restarts=1"* ]]
}

@test "--selection=groups (best of each group of Q/Q1) solves" {
	solves_all "$BATS_TEST_TMPDIR/paper.txt" --seed 6 --selection=groups
}

@test "--couple: brute force over block 1's permutations solves AI Escargot" {
	echo "$ESCARGOT" >"$BATS_TEST_TMPDIR/escargot.txt"
	solves_all "$BATS_TEST_TMPDIR/escargot.txt" --seed 1 --couple
}

@test "--couple-block beyond the grid's blocks gives up with a reason" {
	run "$EDA" --seed 1 --couple --couple-block=5 "$DATA/4x4.txt"
	assert_failure 1
	assert_output "# gave up: couple-block-5-of-4"
}

@test "--max-iterations ends an attempt that rho alone would never end (beta 1)" {
	run "$EDA" --seed 1 --time-limit 20 --beta=1 --max-iterations=2 --zones=none --cycles=3 <<<"$ESCARGOT"
	assert_failure 1
	assert_output "# gave up: no-solution-in-3-resolutions"
}

@test "--cycles=1 on AI Escargot gives up after one resolution" {
	run "$EDA" --seed 2 --cycles=1 <<<"$ESCARGOT"
	assert_failure 1
	assert_output "# gave up: no-solution-in-1-resolutions"
}

@test "progress: iteration, cost, rho and restarts, on standard error" {
	run --separate-stderr "$EDA" --seed 1 --time-limit 0.5 --progress --progress-ms=10 "$DATA/hard25.txt"
	assert_failure 1
	assert_output "# gave up after 0.5 s"
	[[ $stderr =~ sudoku-eda:\ .*line\ 1:\ iter=[0-9]+\ cost=[0-9]+\ rho=0\.[0-9]{3}\ restarts=[0-9]+\ cycles=[0-9]+\ samples=[0-9]+ ]]
}

@test "progress in the protocol, with --couple's permutation count" {
	start_session "$EDA" --protocol --seed 1 --couple --zones=27
	expect_line '^hello eda '
	send "solve h $(cat "$DATA/hard25.txt") progress_ms=10"
	expect_line '^progress h ' 5
	[[ $line =~ ^progress\ h\ iter=[0-9]+\ cost=[0-9]+\ rho=[0-9.]+\ restarts=[0-9]+\ cycles=[0-9]+\ permutation=[0-9]+\ samples=[0-9]+$ ]]
	send "cancel h"
	expect_line '^cancelled h$' 2
}

@test "bounded time: a time limit ends the search of AI Escargot with '# gave up'" {
	run "$EDA" --seed 3 --zones=27 --time-limit 0.5 <<<"$ESCARGOT"
	assert_failure 1
	assert_output "# gave up after 0.5 s"
}

@test "a cell the givens leave without a symbol: gave up, unsat" {
	# row 1 holds 1-8 and column 1 a 9: the first cell has no symbol left
	run "$EDA" --seed 1 <<<".12345678$(printf '9........')$(printf '%063d' 0 | tr 0 .)"
	assert_failure 1
	assert_output "# gave up: unsat"
}

@test "--deduce solves the 17-given puzzles; 4x4 and 16x16 without it" {
	solves_all "$DATA/easy9.txt" --seed 1 --deduce
	solves_all "$DATA/4x4.txt" --seed 1
	solves_all "$DATA/16x16.txt" --seed 1
}

@test "usage errors: --keep above --samples, a bad --zones, an alpha of 1" {
	run --separate-stderr "$EDA" --samples=5 --keep=10 </dev/null
	assert_failure 2
	[[ $stderr == *"--keep=10 is more than --samples=5"* ]]
	run --separate-stderr "$EDA" --zones=5 </dev/null
	assert_failure 2
	[[ $stderr == *"--zones"* ]]
	run --separate-stderr "$EDA" --alpha=1 </dev/null
	assert_failure 2
	[[ $stderr == *"--alpha"* ]]
}

@test "--help lists the paper's parameters with their defaults" {
	run "$EDA" --help
	assert_success
	assert_output --partial "--samples=N"
	assert_output --partial "(default 100)"
	assert_output --partial "(default 10)"
	assert_output --partial "(default 0.7)"
	assert_output --partial "(default 0.6)"
	assert_output --partial "--zones=none|3|9|27"
	assert_output --partial "--sampling=precompute|permutations|both"
}

@test "hello announces a stochastic worker for box sizes 2 to 5" {
	run bash -c "$EDA --protocol </dev/null"
	assert_success
	assert_line --index 0 --regexp '^hello eda [0-9.]+ proto=1 kind=stochastic sizes=2-5 device=cpu'
}
