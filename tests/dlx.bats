#!/usr/bin/env bats
# sudoku-dlx beyond the conformance suite: verified solutions on 9x9, 16x16
# and every box size up to 64x64, exact solution counts, unsat proofs, the
# paper's top-left column choice (the brute force's tree, node for node),
# progress on a fixed node budget, and cancels on large grids.

bats_require_minimum_version 1.5.0
load helpers

PUZZLES="$top_srcdir/puzzles"
NORVIG=".....5.8....6.1.43..........1.5........1.6...3.......553.....61........4........."
# serg's benchmark (tdoku's puzzles7_serg_benchmark) line 1780: exactly 2
# solutions (sudoku-cp and qqwing --count-solutions agree)
TWO_SOLUTIONS="8.........59.......76.........4287.5...956..8...713......694517...831962...572483"
# row 1 holds 1-8 and column 9 holds 9: the cell at row 1, column 9 has no
# candidate, though no given clashes
NO_CANDIDATE="12345678.........9$(printf '.%.0s' $(seq 1 63))"

named() {
	grep -A 1 "^# $1\$" "$PUZZLES/acs-logic-solvable.txt" | tail -n 1
}

# pattern BOX PERCENT: a solved pattern grid of box size BOX (whitespace-
# separated numbers) with about PERCENT% of its cells blanked by a fixed
# formula, so that every awk gives the same puzzle.
pattern() {
	awk -v n="$1" -v pct="$2" 'BEGIN {
		N = n * n
		for (r = 0; r < N; r++)
			for (c = 0; c < N; c++) {
				v = ((r % n) * n + int(r / n) + c) % N + 1
				if ((r * 37 + c * 101 + r * c * 13) % 100 < pct)
					v = 0
				printf "%d%s", v, (r == N - 1 && c == N - 1) ? "\n" : " "
			}
	}'
}

@test "dlx: solves the 16 named 9x9 puzzles of the ACO paper, verified" {
	run sudoku-dlx "$PUZZLES/acs-logic-solvable.txt"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$PUZZLES/acs-logic-solvable.txt" "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line "16 ok, 0 none, 0 wrong"
}

@test "dlx: solves ten 16x16 puzzles at 45% fixed, verified" {
	run sudoku-dlx "$PUZZLES/acs-16x16-45.txt"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$PUZZLES/acs-16x16-45.txt" "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line "10 ok, 0 none, 0 wrong"
}

@test "dlx: every box size from 2 (4x4) to 8 (64x64), verified" {
	for box in 2 3 4 5 6 7 8; do
		pattern "$box" 30 >"$BATS_TEST_TMPDIR/in$box"
		run sudoku-dlx "$BATS_TEST_TMPDIR/in$box"
		assert_success
		echo "$output" >"$BATS_TEST_TMPDIR/out$box"
		run verify "$BATS_TEST_TMPDIR/in$box" "$BATS_TEST_TMPDIR/out$box"
		assert_line "1 ok, 0 none, 0 wrong"
	done
}

@test "dlx --count: 0, 1, 2 and many solutions" {
	run sudoku-dlx --count=100 <<<"$NORVIG"
	assert_failure 1
	assert_output "# unsat"
	run sudoku-dlx --count=100 "$DATA/easy9.txt"
	assert_success
	assert_output "$(cat "$DATA/easy9.solutions")"
	run sudoku-dlx --count=100 <<<"$TWO_SOLUTIONS"
	assert_failure 1
	assert_output "# multiple solutions: 2"
	# 27 per qqwing --count-solutions
	run sudoku-dlx --count=100 <<<"$(named sabuncu3)"
	assert_failure 1
	assert_output "# multiple solutions: 27"
}

@test "dlx --count: exact counts up to the limit, then 'at least'" {
	# the empty 4x4 grid: 288 solutions
	run sudoku-dlx --count=1000 <<<"................"
	assert_failure 1
	assert_output "# multiple solutions: 288"
	run sudoku-dlx --count=288 <<<"................"
	assert_output "# multiple solutions: at least 288"
	run sudoku-dlx --count=287 <<<"................"
	assert_output "# multiple solutions: at least 287"
	# the suite's several-solution puzzle: 872 (sudoku-cp and qqwing agree)
	run sudoku-dlx --count=100000 <<<"8.........95.......76.........426798...571243...893165......916....3.487....1.532"
	assert_output "# multiple solutions: 872"
	run sudoku-dlx --count=500 <<<"8.........95.......76.........426798...571243...893165......916....3.487....1.532"
	assert_output "# multiple solutions: at least 500"
	# pattern grids with 30-40% blanks (sudoku-cp agrees)
	expected=([4]=16 [5]=48 [6]=160 [7]=8 [8]=18)
	for box in 4 5 6 7 8; do
		pct=30
		[ "$box" -le 5 ] && pct=40
		pattern "$box" "$pct" >"$BATS_TEST_TMPDIR/in"
		run sudoku-dlx --count=1000 "$BATS_TEST_TMPDIR/in"
		assert_output "# multiple solutions: ${expected[$box]}"
	done
}

@test "dlx protocol: count=K answers with the exact count and a verified first solution" {
	start_session sudoku-dlx --protocol
	expect_line '^hello dlx '
	send "solve m 8.........95.......76.........426798...571243...893165......916....3.487....1.532 count=1000" \
		"solve t $TWO_SOLUTIONS count=1000" "solve z $NORVIG count=1000"
	expect_line '^count m '
	[[ $line =~ ^count\ m\ 872\ ([1-9]{81})\ nodes=[0-9]+\ ms= ]]
	echo "8.........95.......76.........426798...571243...893165......916....3.487....1.532" >"$BATS_TEST_TMPDIR/p"
	echo "${BASH_REMATCH[1]}" >"$BATS_TEST_TMPDIR/s"
	run verify "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/s"
	assert_line "1 ok, 0 none, 0 wrong"
	expect_line '^count t '
	[[ $line == "count t 2 "* ]]
	expect_line '^count z '
	[[ $line == "count z 0 "* ]]
}

@test "dlx: unsat proofs: clashing givens, a cell with no candidate, Norvig's impossible puzzle" {
	echo "11${NORVIG:2}" >"$BATS_TEST_TMPDIR/clash"
	run sudoku-dlx "$BATS_TEST_TMPDIR/clash"
	assert_failure 1
	assert_output "# unsat: $BATS_TEST_TMPDIR/clash: line 1: value 1 twice in row 1 (row 1 column 1, row 1 column 2)"
	start_session sudoku-dlx --protocol
	expect_line '^hello dlx '
	# the empty column is the smallest: no row is ever chosen
	send "solve n $NO_CANDIDATE"
	expect_line '^(unsat|solution|gaveup|error) n'
	[[ $line == "unsat n nodes=0 "* ]]
	send "solve z $NORVIG"
	expect_line '^(unsat|solution|gaveup|error) z'
	[[ $line =~ ^unsat\ z\ nodes=[1-9][0-9]*\  ]]
}

@test "dlx --column=top-left: the brute force's tree, node for node" {
	# Algorithm 3's first column is the first open cell: digits in
	# increasing order, as section 2.1 fills it
	unsat=$(cat "$top_srcdir/tests/conformance/sudoku-bf.data/unsat9.txt")
	for p in "$(named aiescargot)" "$(head -n 1 "$DATA/16x16.txt")" "$TWO_SOLUTIONS" "$unsat"; do
		bf=$(sudoku-bf --protocol <<<"solve x $p count=1000" | grep -o ' nodes=[0-9]*')
		dlx=$(sudoku-dlx --column=top-left --protocol <<<"solve x $p count=1000" | grep -o ' nodes=[0-9]*')
		echo "bf$bf dlx$dlx"
		[ -n "$bf" ]
		[ "$bf" = "$dlx" ]
	done
}

@test "dlx protocol: progress on a fixed node budget carries depth, filled and nodes" {
	# tests/data/dlx-budget25.txt (a 25x25 at 45% with one given changed)
	# takes this search 2051900 rows to its first solution
	start_session sudoku-dlx --protocol
	expect_line '^hello dlx '
	send "solve h $(cat "$DATA/dlx-budget25.txt") progress_ms=10"
	expect_line '^solution h ' 60
	[[ $line =~ \ nodes=2051900\  ]]
	progress=("${seen[@]}")
	[ "${#progress[@]}" -ge 1 ]
	last=0
	for l in "${progress[@]}"; do
		[[ $l =~ ^progress\ h\ depth=([0-9]+)\ filled=([0-9]+)/625\ nodes=([0-9]+)$ ]]
		depth=${BASH_REMATCH[1]} filled=${BASH_REMATCH[2]} nodes=${BASH_REMATCH[3]}
		# dlx-budget25 has 282 givens: filled counts them and the rows chosen
		[ "$filled" -eq $((282 + depth)) ]
		[ "$nodes" -gt "$last" ]
		[ "$nodes" -le 2051900 ]
		last=$nodes
	done
}

@test "dlx --progress: filter mode reports on standard error" {
	run --separate-stderr sudoku-dlx --progress --progress-ms 10 --time-limit 120 "$DATA/dlx-budget25.txt"
	assert_success
	echo "$output" >"$BATS_TEST_TMPDIR/out"
	run verify "$DATA/dlx-budget25.txt" "$BATS_TEST_TMPDIR/out"
	assert_line "1 ok, 0 none, 0 wrong"
	[[ $stderr =~ sudoku-dlx:\ .*dlx-budget25.txt:\ line\ 1:\ depth=[0-9]+\ filled=[0-9]+/625\ nodes=[0-9]+ ]]
}

@test "dlx protocol: a cancel on a 64x64 search is acknowledged within the grace" {
	pattern 8 50 | tr ' ' , >"$BATS_TEST_TMPDIR/big"
	start_session sudoku-dlx --protocol
	expect_line '^hello dlx '
	send "solve b $(cat "$BATS_TEST_TMPDIR/big") progress_ms=20"
	# the search running (its progress says so), not a fixed sleep
	expect_line '^progress b ' 10
	cancel_within b 1000
}
