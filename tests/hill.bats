#!/usr/bin/env bats
# sudoku-hill beyond the conformance suite: seeds, the paper's options,
# restarts, the iteration and time limits, the corner cases of the state
# space. Every run has a seed and a time limit, so each is reproducible and
# bounded.

bats_require_minimum_version 1.5.0
load helpers

ESCARGOT=1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..
# No solution, but nothing shows it at once: the search climbs and restarts.
UNSAT9=.....5.8....6.1.43..........1.5........1.6...3.......553.....61........4.........
# One free cell per box, and that box's missing digit clashes with a given
# of its row: the only state of the search space is no solution.
UNSAT4=.21434.221434321

hill() {
	sudoku-hill --time-limit 60 "$@"
}

# The effort fields of a --summary line on stderr, without the time.
effort() {
	sed -n 's/^sudoku-hill: .*\(iteration=[0-9]* restarts=[0-9]* best=[-0-9.e+]*\).*/\1/p' <<<"$1"
}

@test "solves one puzzle of each qqwing level, answers verified" {
	run hill --seed 3 "$DATA/qqwing9.txt"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$DATA/qqwing9.txt" "$BATS_TEST_TMPDIR/out"
	assert_line "4 ok, 0 none, 0 wrong"
	run diff "$BATS_TEST_TMPDIR/out" "$DATA/qqwing9.solutions"
	assert_success
}

@test "the same seed gives the same search, another seed another" {
	run --separate-stderr hill --seed 11 --summary <<<"$ESCARGOT"
	assert_success
	first=$(effort "$stderr")
	[[ $first == iteration=* ]]
	run --separate-stderr hill --seed 11 --summary <<<"$ESCARGOT"
	assert_success
	assert_equal "$(effort "$stderr")" "$first"
	run --separate-stderr hill --seed 12 --summary <<<"$ESCARGOT"
	assert_success
	[ "$(effort "$stderr")" != "$first" ]
}

@test "AI Escargot needs restarts, and the summary counts them" {
	run --separate-stderr hill --seed 1 --summary <<<"$ESCARGOT"
	assert_success
	assert_output "162857493534129678789643521475312986913586742628794135356478219241935867897261354"
	[[ $stderr =~ restarts=([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
}

@test "progress shows the iteration, the score and the restarts as they happen" {
	start_session sudoku-hill --protocol --seed 1
	expect_line '^hello hill '
	send "solve h $UNSAT9 progress_ms=20"
	expect_line '^progress h iteration=[0-9]+ score=[-0-9.e+]+ best=[-0-9.e+]+ restarts=[1-9][0-9]*$' 20
	send "cancel h"
	expect_line '^cancelled h$' 2
}

@test "--max-iterations: the limit gives '# gave up', exit 1" {
	run hill --seed 1 --max-iterations 5 <<<"$ESCARGOT"
	assert_failure 1
	assert_output "# gave up: iterations"
}

@test "--max-iterations in protocol mode: gaveup with the reason iterations" {
	start_session sudoku-hill --protocol --seed 1 --max-iterations 40
	expect_line '^hello '
	send "solve e $ESCARGOT"
	expect_line '^(gaveup|solution) e' 10
	[[ $line == "gaveup e iterations ms="* ]]
}

@test "--time-limit: a puzzle out of reach ends in time with '# gave up'" {
	start=$SECONDS
	run sudoku-hill --seed 1 --time-limit 0.5 "$DATA/hard25.txt"
	assert_failure 1
	assert_output "# gave up after 0.5 s"
	# generous: the limit is polled every few thousand swaps
	[ $((SECONDS - start)) -lt 10 ]
}

@test "options: random start, no post-swap, a queue of one, other weights still solve" {
	for opts in "--no-greedy" "--no-post-swap" "--no-greedy --no-post-swap" "--queue 1" \
		"--queue 50" "--w2 0" "--w1 2 --w2 -3" "--no-plateau-walk" "--no-plateau-walk --queue 1"; do
		# shellcheck disable=SC2086
		run hill --seed 2 $opts "$DATA/qqwing9.txt"
		assert_success
		assert_output "$(cat "$DATA/qqwing9.solutions")"
	done
}

@test "the greedy start (Figure 3, 4.4) scores better than a random one" {
	# --max-iterations 1: best= is the score of the initial state
	greedy=0 random=0
	for seed in 1 2 3 4 5; do
		run --separate-stderr hill --seed $seed --summary --max-iterations 1 <<<"$ESCARGOT"
		[[ $stderr =~ best=([0-9]+) ]]
		greedy=$((greedy + BASH_REMATCH[1]))
		run --separate-stderr hill --seed $seed --summary --max-iterations 1 --no-greedy --no-post-swap <<<"$ESCARGOT"
		[[ $stderr =~ best=([0-9]+) ]]
		random=$((random + BASH_REMATCH[1]))
	done
	echo "greedy $greedy, random $random"
	[ "$greedy" -gt "$random" ]
}

@test "the plateau walk (4.5) makes longer climbs: fewer restarts per iteration" {
	walk_it=0 walk_rs=0 still_it=0 still_rs=0
	for seed in 1 2 3; do
		run --separate-stderr hill --seed $seed --summary <<<"$ESCARGOT"
		assert_success
		[[ $stderr =~ iteration=([0-9]+)\ restarts=([0-9]+) ]]
		walk_it=$((walk_it + BASH_REMATCH[1])) walk_rs=$((walk_rs + BASH_REMATCH[2]))
		run --separate-stderr hill --seed $seed --summary --no-plateau-walk <<<"$ESCARGOT"
		assert_success
		[[ $stderr =~ iteration=([0-9]+)\ restarts=([0-9]+) ]]
		still_it=$((still_it + BASH_REMATCH[1])) still_rs=$((still_rs + BASH_REMATCH[2]))
	done
	echo "walk: $walk_it iterations, $walk_rs restarts; no walk: $still_it, $still_rs"
	# iterations per climb: walk_it / (walk_rs + 3) > still_it / (still_rs + 3)
	[ $((walk_it * (still_rs + 3))) -gt $((still_it * (walk_rs + 3))) ]
}

@test "bad option values are usage errors" {
	run --separate-stderr sudoku-hill --queue 0 "$DATA/qqwing9.txt"
	assert_failure 2
	[[ $stderr == *"--queue"* ]]
	run --separate-stderr sudoku-hill --w1 heavy "$DATA/qqwing9.txt"
	assert_failure 2
	[[ $stderr == *"--w1"* ]]
}

@test "one free cell per box: solved by the initial state, with no iteration" {
	solution=$(head -n 3 "$DATA/qqwing9.solutions" | tail -n 1)
	# blank the first cell of each box
	puzzle=$solution
	for b in 0 1 2 3 4 5 6 7 8; do
		i=$(((b / 3) * 27 + (b % 3) * 3))
		puzzle="${puzzle:0:i}.${puzzle:i+1}"
	done
	run --separate-stderr hill --seed 1 --summary <<<"$puzzle"
	assert_success
	assert_output "$solution"
	[[ $stderr == *"iteration=0 restarts=0"* ]]
}

@test "a search space of one state that is no solution: '# gave up: unsat'" {
	run hill --seed 1 <<<"$UNSAT4"
	assert_failure 1
	assert_output "# gave up: unsat"
}

@test "larger grids: 16x16 and 25x25" {
	run hill --seed 1 "$DATA/16x16.txt" "$DATA/25x25.txt"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	cat "$DATA/16x16.txt" "$DATA/25x25.txt" >"$BATS_TEST_TMPDIR/in"
	run verify "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	assert_line "2 ok, 0 none, 0 wrong"
}
