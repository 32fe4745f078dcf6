#!/usr/bin/env bats
# sudoku-bf beyond the conformance suite: verified solutions on 9x9, 16x16
# and every box size up to 64x64, solution counts, unsat proofs (Norvig's
# impossible puzzle included: 2.5e9 nodes, the slowest test here), the two
# validity checks giving one tree, progress on a fixed node budget, and
# cancels on grids it would take hours on.

bats_require_minimum_version 1.5.0
load helpers

PUZZLES="$top_srcdir/puzzles"
BF_DATA="$top_srcdir/tests/conformance/sudoku-bf.data"
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

# nodes_of ARGS... <<<LINE: the nodes= of the worker's final answer.
nodes_of() {
	sudoku-bf --protocol "$@" | grep -o ' nodes=[0-9]*' | cut -d= -f2
}

@test "bf: solves the 16 named 9x9 puzzles of the ACO paper, verified" {
	run sudoku-bf "$PUZZLES/acs-logic-solvable.txt"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$PUZZLES/acs-logic-solvable.txt" "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line "16 ok, 0 none, 0 wrong"
}

@test "bf: solves 16x16 puzzles, verified" {
	{
		cat "$DATA/16x16.txt"
		# the two of the ten at 45% that the reading order does in a few
		# million nodes (the others take it longer than anyone waits)
		grep -v '^#' "$PUZZLES/acs-16x16-45.txt" | sed -n '4p;8p'
	} >"$BATS_TEST_TMPDIR/in"
	run sudoku-bf "$BATS_TEST_TMPDIR/in"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line "3 ok, 0 none, 0 wrong"
}

@test "bf: every box size from 2 (4x4) to 8 (64x64), verified, counts as dlx's" {
	for box in 2 3 4 5 6 7 8; do
		pattern "$box" 20 >"$BATS_TEST_TMPDIR/in$box"
		run sudoku-bf "$BATS_TEST_TMPDIR/in$box"
		assert_success
		echo "$output" >"$BATS_TEST_TMPDIR/out$box"
		run verify "$BATS_TEST_TMPDIR/in$box" "$BATS_TEST_TMPDIR/out$box"
		assert_line "1 ok, 0 none, 0 wrong"
		bf=$(sudoku-bf --count=100 "$BATS_TEST_TMPDIR/in$box" | head -c 40)
		dlx=$(sudoku-dlx --count=100 "$BATS_TEST_TMPDIR/in$box" | head -c 40)
		echo "box $box: bf '$bf' dlx '$dlx'"
		[ "$bf" = "$dlx" ]
	done
}

@test "bf --count: 0, 1, 2 and many solutions" {
	run sudoku-bf --count=100 "$BF_DATA/unsat9.txt"
	assert_failure 1
	assert_output "# unsat"
	run sudoku-bf --count=100 "$BF_DATA/easy9.txt"
	assert_success
	assert_output "$(cat "$BF_DATA/easy9.solutions")"
	run sudoku-bf --count=100 <<<"$TWO_SOLUTIONS"
	assert_failure 1
	assert_output "# multiple solutions: 2"
	# 27 per qqwing --count-solutions
	run sudoku-bf --count=100 <<<"$(named sabuncu3)"
	assert_failure 1
	assert_output "# multiple solutions: 27"
	run sudoku-bf --count=100000 <<<"8.........95.......76.........426798...571243...893165......916....3.487....1.532"
	assert_output "# multiple solutions: 872"
	run sudoku-bf --count=1000 <<<"................"
	assert_output "# multiple solutions: 288"
	run sudoku-bf --count=288 <<<"................"
	assert_output "# multiple solutions: at least 288"
}

@test "bf: unsat proofs: clashing givens, a cell with no candidate, Norvig's impossible puzzle" {
	echo "11${NORVIG:2}" >"$BATS_TEST_TMPDIR/clash"
	run sudoku-bf "$BATS_TEST_TMPDIR/clash"
	assert_failure 1
	assert_output "# unsat: $BATS_TEST_TMPDIR/clash: line 1: value 1 twice in row 1 (row 1 column 1, row 1 column 2)"
	start_session sudoku-bf --protocol
	expect_line '^hello bf '
	# the first open cell has no digit to try
	send "solve n $NO_CANDIDATE"
	expect_line '^(unsat|solution|gaveup|error) n'
	[[ $line == "unsat n nodes=0 "* ]]
	# the whole tree of the reading order: tens of seconds
	send "solve z $NORVIG"
	expect_line '^(unsat|solution|gaveup|error) z' 600
	[[ $line == "unsat z nodes=2549798780 "* ]]
}

@test "bf --check=scan: the paper's board scan gives the bit sets' tree" {
	for p in "$(named aiescargot)" "$(head -n 1 "$DATA/16x16.txt")" "$TWO_SOLUTIONS" \
		"$(cat "$BF_DATA/unsat9.txt")"; do
		mask=$(nodes_of --check=mask <<<"solve x $p count=1000")
		scan=$(nodes_of --check=scan <<<"solve x $p count=1000")
		echo "mask $mask scan $scan"
		[ -n "$mask" ]
		[ "$mask" = "$scan" ]
	done
	# the unsat puzzle of the conformance data: a fixed tree
	[ "$(nodes_of <<<"solve x $(cat "$BF_DATA/unsat9.txt")")" = 18456 ]
}

@test "bf protocol: progress on a fixed node budget carries depth, filled and nodes" {
	# the third puzzle of tests/data/easy9.txt (17 givens) takes the reading
	# order 85933420 digits to its solution
	start_session sudoku-bf --protocol
	expect_line '^hello bf '
	send "solve p $(sed -n 3p "$DATA/easy9.txt") progress_ms=10"
	expect_line '^solution p ' 60
	[[ $line == "solution p $(sed -n 3p "$DATA/easy9.solutions") nodes=85933420 "* ]]
	progress=("${seen[@]}")
	[ "${#progress[@]}" -ge 1 ]
	last=0
	for l in "${progress[@]}"; do
		[[ $l =~ ^progress\ p\ depth=([0-9]+)\ filled=([0-9]+)/81\ nodes=([0-9]+)$ ]]
		depth=${BASH_REMATCH[1]} filled=${BASH_REMATCH[2]} nodes=${BASH_REMATCH[3]}
		[ "$filled" -eq $((17 + depth)) ]
		[ "$depth" -le 64 ]
		[ "$nodes" -gt "$last" ]
		[ "$nodes" -le 85933420 ]
		last=$nodes
	done
}

@test "bf --progress: filter mode reports on standard error" {
	sed -n 3p "$DATA/easy9.txt" >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr sudoku-bf --progress --progress-ms 10 "$BATS_TEST_TMPDIR/in"
	assert_success
	assert_output "$(sed -n 3p "$DATA/easy9.solutions")"
	[[ $stderr =~ sudoku-bf:\ .*/in:\ line\ 1:\ depth=[0-9]+\ filled=[0-9]+/81\ nodes=[0-9]+ ]]
}

# cancels CHECK: a 25x25 and a 64x64 search, each cancelled mid-search.
cancels() {
	pattern 8 50 | tr ' ' , >"$BATS_TEST_TMPDIR/big"
	start_session sudoku-bf --protocol --check="$1"
	expect_line '^hello bf '
	send "solve h $(cat "$DATA/hard25.txt") progress_ms=20"
	# the search running (its progress says so), not a fixed sleep
	expect_line '^progress h ' 10
	cancel_within h 1000
	send "solve b $(cat "$BATS_TEST_TMPDIR/big") progress_ms=20"
	expect_line '^progress b ' 10
	cancel_within b 1000
}

@test "bf protocol: cancels on 25x25 and 64x64 searches are acknowledged within the grace" {
	cancels mask
}

@test "bf --check=scan: cancels on 25x25 and 64x64 searches are acknowledged within the grace" {
	cancels scan
}

@test "bf: a time limit on a 64x64 it would take hours on ends in time" {
	pattern 8 50 >"$BATS_TEST_TMPDIR/big"
	start=$(date +%s%N)
	run sudoku-bf --check=scan --time-limit 0.2 "$BATS_TEST_TMPDIR/big"
	elapsed_ms=$((($(date +%s%N) - start) / 1000000))
	assert_failure 1
	assert_output "# timeout after 0.2 s"
	echo "ended after $elapsed_ms ms"
	[ "$elapsed_ms" -lt 2000 ]
}
