#!/usr/bin/env bats
# sudoku-rate: a level from the techniques a person needs, stable on known
# puzzles; a '#' line naming the line for what cannot be rated; --json.

bats_require_minimum_version 1.5.0
load helpers

RATE="$top_builddir/tools/sudoku-rate"
GENERATE="$top_builddir/tools/sudoku-generate"

@test "the known puzzles: one a technique, easiest first, then expert and extreme" {
	run "$RATE" "$DATA/rate9.txt"
	assert_success
	assert_output "simple 1/6: naked single
easy 2/6: hidden single
intermediate 3/6: pointing
intermediate 3/6: claiming
intermediate 3/6: naked pair
intermediate 3/6: hidden pair
hard 4/6: naked triple
hard 4/6: hidden triple
hard 4/6: x-wing
hard 4/6: xy-wing
hard 4/6: swordfish
hard 4/6: jellyfish
expert 5/6: guess (2 guesses; before them: claiming)
extreme 6/6: guess (77 guesses, 9 deep)"
}

@test "qqwing's levels: simple, easy and intermediate agree; its expert is hard or above" {
	run "$RATE" "$DATA/qqwing9.txt"
	assert_success
	assert_line --index 0 "simple 1/6: naked single"
	assert_line --index 1 "easy 2/6: hidden single"
	assert_line --index 2 --regexp '^intermediate 3/6: '
	assert_line --index 3 --regexp '^(hard|expert|extreme) '
}

@test "a singles-only puzzle rates lowest; a known hard one from puzzles/9x9 rates highest" {
	local simple hard
	simple=$(sed -n 3p "$DATA/qqwing9.txt")
	hard=$(xz -dc "$top_srcdir/puzzles/9x9/puzzles6_forum_hardest_1106.xz" | grep -v '^#' | head -1)
	run "$RATE" <<<"$simple"
	assert_output "simple 1/6: naked single"
	run "$RATE" <<<"$hard"
	assert_success
	assert_output --regexp '^extreme 6/6: guess \([0-9]+ guesses, [0-9]+ deep'
}

@test "any notation the solvers read; 4x4, 16x16 and 25x25 grids" {
	# a block grid, and zeros for blanks
	run "$RATE" <<<"$(sed -n 3p "$DATA/qqwing9.txt" | tr . 0 | fold -w 9)"
	assert_success
	assert_output "simple 1/6: naked single"
	run "$RATE" <<<"1..."$'\n'"..1."$'\n'".1.."$'\n'"...."
	assert_failure 1
	assert_output "# multiple solutions: line 1: not rated"
	local box
	for box in 2 4 5; do
		"$GENERATE" --box=$box --number=2 --seed=2 >"$BATS_TEST_TMPDIR/p"
		run "$RATE" "$BATS_TEST_TMPDIR/p"
		assert_success
		assert_equal "${#lines[@]}" 2
		assert_line --index 0 --regexp '^(simple|easy|intermediate|hard|expert|extreme) [1-6]/6: '
	done
}

@test "the same input, the same ratings" {
	"$GENERATE" --number=20 --seed=3 >"$BATS_TEST_TMPDIR/p"
	run "$RATE" "$BATS_TEST_TMPDIR/p"
	assert_success
	local first=$output
	assert_equal "${#lines[@]}" 20
	run "$RATE" <"$BATS_TEST_TMPDIR/p"
	assert_output "$first"
}

# dots N: N blanks
dots() {
	printf '.%.0s' $(seq 1 "$1")
}

@test "what cannot be rated: a '#' line naming the line, the others rated, exit 1" {
	printf '%s\n' "# a comment" \
		"$(sed -n 3p "$DATA/qqwing9.txt")" \
		"1.3" \
		"11$(dots 79)" \
		"$(dots 81)" \
		"12345678.........9$(dots 63)" \
		"$(sed -n 4p "$DATA/qqwing9.txt")" >"$BATS_TEST_TMPDIR/in"
	run "$RATE" "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	assert_equal "${#lines[@]}" 6
	assert_line --index 0 "simple 1/6: naked single"
	assert_line --index 1 --regexp "^# invalid: $BATS_TEST_TMPDIR/in: line 3: "
	assert_line --index 2 "# unsat: $BATS_TEST_TMPDIR/in: line 4: value 1 twice in row 1 (row 1 column 1, row 1 column 2)"
	assert_line --index 3 "# multiple solutions: $BATS_TEST_TMPDIR/in: line 5: not rated"
	# row 1 leaves its last cell a 9, which column 9 has
	assert_line --index 4 "# unsat: $BATS_TEST_TMPDIR/in: line 6: no solution"
	assert_line --index 5 "easy 2/6: hidden single"
	# standard input names no file
	run "$RATE" <"$BATS_TEST_TMPDIR/in"
	assert_failure 1
	assert_line --index 1 --regexp "^# invalid: line 3: "
	assert_line --index 4 "# unsat: line 6: no solution"
}

@test "--json: an object a line, with the level, the techniques and the guesses" {
	run "$RATE" --json "$DATA/rate9.txt"
	assert_success
	assert_equal "${#lines[@]}" 14
	run jq -r '[.line, .status, .level, .rank, .hardest, .guesses, .depth] | @tsv' <<<"$output"
	assert_success
	assert_line --index 0 "$(printf '6\trated\tsimple\t1\tnaked single\t0\t0')"
	assert_line --index 12 "$(printf '18\trated\texpert\t5\tguess\t2\t1')"
	assert_line --index 13 "$(printf '19\trated\textreme\t6\tguess\t77\t9')"
	run bash -c "'$RATE' --json '$DATA/rate9.txt' | sed -n 9p | jq -c '{file, hardest_logic, givens, uses}'"
	assert_output "{\"file\":\"$DATA/rate9.txt\",\"hardest_logic\":\"x-wing\",\"givens\":17,\"uses\":$(
		"$RATE" --json "$DATA/rate9.txt" | sed -n 9p | jq -c .uses)}"
	"$RATE" --json "$DATA/rate9.txt" | sed -n 9p | jq -e '.uses["x-wing"] >= 1 and .uses["naked single"] > 10'
	# what has no rating
	run "$RATE" --json <<<"1.3"
	assert_failure 1
	assert_output --regexp '^\{"line":1,"puzzle":null,"status":"invalid","reason":"line 1: [^"]+"\}$'
	run "$RATE" --json <<<"11$(dots 79)"
	assert_failure 1
	assert_output --regexp '^\{"line":1,"puzzle":"11\.+","status":"unsat","reason":"line 1: value 1 twice'
	jq -e . <<<"$output"
}

@test "--json writes valid UTF-8 for a file name that is not" {
	local name
	name=$BATS_TEST_TMPDIR/$'caf\xe9.txt'
	sed -n 3p "$DATA/qqwing9.txt" >"$name"
	run "$RATE" --json "$name"
	assert_success
	iconv -f UTF-8 -t UTF-8 <<<"$output" >/dev/null
	jq -e '.file | endswith("caf\ufffd.txt")' <<<"$output"
}

@test "--max-guesses bounds the search: over N guesses when the puzzle is known unique" {
	local hard
	hard=$(sed -n 19p "$DATA/rate9.txt")
	run "$RATE" --max-guesses=5 <<<"$hard"
	assert_success
	assert_output --regexp '^extreme 6/6: guess \(over 5 guesses'
}

@test "--help, --version; usage errors exit 2; a missing file exits 2 and the rest is rated" {
	run "$RATE" --help
	assert_success
	assert_line --partial "--json"
	assert_line --regexp '^  6 extreme: '
	run "$RATE" --version
	assert_success
	assert_line --index 0 --regexp '^sudoku-rate \(sudoku-race\) [0-9]'
	run "$RATE" --frobnicate
	assert_failure 2
	run "$RATE" --max-guesses=lots
	assert_failure 2
	assert_output "sudoku-rate: --max-guesses: 'lots' is not a whole number"
	run "$RATE" "$BATS_TEST_TMPDIR/none" "$DATA/qqwing9.txt"
	assert_failure 2
	assert_line --index 0 "sudoku-rate: $BATS_TEST_TMPDIR/none: No such file or directory"
	assert_line --index 1 "simple 1/6: naked single"
}
