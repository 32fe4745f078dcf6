#!/usr/bin/env bats
# The worker driver's filter mode beyond the conformance suite, through
# sudoku-cp: options, output forms, files, pipes.

bats_require_minimum_version 1.5.0
load helpers

@test "--pretty prints a boxed grid" {
	run sudoku-cp --pretty "$DATA/4x4.txt"
	assert_success
	assert_line --index 0 "+-----+-----+"
	assert_line --index 1 "| 1 3 | 2 4 |"
	assert_line --index 3 "+-----+-----+"
	assert_equal "${#lines[@]}" 7
}

@test "--progress reports on standard error, throttled, with the line" {
	run --separate-stderr sudoku-cp --progress --progress-ms 50 --time-limit 1 "$DATA/hard25.txt"
	assert_failure 1
	assert_output "# timeout after 1 s"
	[[ $stderr =~ sudoku-cp:\ .*hard25.txt:\ line\ 1:\ depth=[0-9]+\ filled=[0-9]+/625\ nodes=[0-9]+\ \([0-9.]+\ s\) ]]
	n=$(grep -c 'line 1:' <<<"$stderr" || true)
	# at most one line every 50 ms (a few more for the clock's slack)
	[ "$n" -ge 1 ]
	[ "$n" -le 25 ]
}

@test "several files: answers in order, errors name their file" {
	printf '%s\n' 'not a puzzle' >"$BATS_TEST_TMPDIR/bad.txt"
	run sudoku-cp "$DATA/4x4.txt" "$BATS_TEST_TMPDIR/bad.txt" "$DATA/easy9.txt"
	assert_failure 1
	assert_equal "${#lines[@]}" 5
	assert_equal "${lines[0]}" "1324423124133142"
	assert_equal "${lines[1]}" "# invalid: $BATS_TEST_TMPDIR/bad.txt: line 1: 10 cells, expected 16"
	assert_equal "${lines[4]}" "$(tail -n 1 "$DATA/easy9.solutions")"
}

@test "empty input: no output, exit 0" {
	run sudoku-cp </dev/null
	assert_success
	assert_output ""
	run sudoku-cp <<<$'# only a comment\n\n'
	assert_success
	assert_output ""
}

@test "25x25 in letters and 36x36 in numbers are solved in their notation" {
	run sudoku-cp "$DATA/25x25.txt"
	assert_success
	[[ $output =~ ^[1-9A-P]{625}$ ]]
	echo "$output" >"$BATS_TEST_TMPDIR/out"
	run verify "$DATA/25x25.txt" "$BATS_TEST_TMPDIR/out"
	assert_line "1 ok, 0 none, 0 wrong"
	run sudoku-cp "$DATA/36x36.txt"
	assert_success
	[ "$(wc -w <<<"$output")" -eq 1296 ]
	echo "$output" >"$BATS_TEST_TMPDIR/out"
	run verify "$DATA/36x36.txt" "$BATS_TEST_TMPDIR/out"
	assert_line "1 ok, 0 none, 0 wrong"
}

@test "--count=K counts exactly below K, 'at least K' at it" {
	sabuncu3=$(grep -A1 '^# sabuncu3' "$top_srcdir/puzzles/acs-logic-solvable.txt" | tail -n 1)
	run sudoku-cp --count=100 <<<"$sabuncu3"
	assert_failure 1
	assert_output "# multiple solutions: 27"
	run sudoku-cp --count=27 <<<"$sabuncu3"
	assert_output "# multiple solutions: at least 27"
}

@test "bad option values are usage errors naming the option" {
	run --separate-stderr sudoku-cp --time-limit abc
	assert_failure 2
	[[ $stderr == *"--time-limit: 'abc' is not a number"* ]]
	run --separate-stderr sudoku-cp --seed -1
	assert_failure 2
	[[ $stderr == *"--seed"* ]]
	run --separate-stderr sudoku-cp --count=1
	assert_failure 2
	[[ $stderr == *"out of range"* ]]
	run --separate-stderr sudoku-cp --protocol "$DATA/4x4.txt"
	assert_failure 2
}

@test "a slow producer gets each answer as soon as its puzzle is in" {
	start_session sudoku-cp
	send "$(head -n 1 "$DATA/easy9.txt")"
	expect_line "^$(head -n 1 "$DATA/easy9.solutions")\$" 3
	send "$(sed -n 2p "$DATA/easy9.txt")"
	expect_line "^$(sed -n 2p "$DATA/easy9.solutions")\$" 3
}

@test "| head -1 ends the worker cleanly" {
	for i in $(seq 1 3000); do cat "$DATA/easy9.txt"; done >"$BATS_TEST_TMPDIR/many.txt"
	run bash -c "sudoku-cp '$BATS_TEST_TMPDIR/many.txt' | head -n 1"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "'-' reads standard input between files" {
	run bash -c "head -n 1 '$DATA/easy9.txt' | sudoku-cp '$DATA/4x4.txt' - '$DATA/4x4.txt'"
	assert_success
	assert_equal "${lines[0]}" "1324423124133142"
	assert_equal "${lines[1]}" "$(head -n 1 "$DATA/easy9.solutions")"
	assert_equal "${lines[2]}" "1324423124133142"
}

@test "every program's --help fits in 80 columns" {
	local p width
	for p in sudoku-race sudoku-cp sudoku-dlx sudoku-bf sudoku-acs sudoku-eda sudoku-hill sudoku-tabu \
		sudoku-gpu sudoku-sat; do
		command -v "$p" >/dev/null || continue # sudoku-gpu without CUDA, sudoku-sat without CaDiCaL
		run "$p" --help
		assert_success
		# display columns: × and § are one each
		width=$(LC_ALL=C.UTF-8 wc -L <<<"$output")
		[ "$width" -le 80 ] || {
			echo "$p --help is $width columns wide:"
			LC_ALL=C.UTF-8 awk 'length > 80' <<<"$output"
			false
		}
	done
}

@test "a line holding a NUL byte is reported, by the workers and by the racer" {
	printf '\0\n%s\nab\0c\n' "$(head -n 1 "$DATA/easy9.txt")" >"$BATS_TEST_TMPDIR/nul.txt"
	run sudoku-cp "$BATS_TEST_TMPDIR/nul.txt"
	assert_failure 1
	assert_equal "${#lines[@]}" 3
	assert_equal "${lines[0]}" "# invalid: $BATS_TEST_TMPDIR/nul.txt: line 1: a NUL byte at column 1"
	assert_equal "${lines[1]}" "$(head -n 1 "$DATA/easy9.solutions")"
	assert_equal "${lines[2]}" "# invalid: $BATS_TEST_TMPDIR/nul.txt: line 3: a NUL byte at column 3"
	run sudoku-race --no-cache --workers=cp <"$BATS_TEST_TMPDIR/nul.txt"
	assert_failure 1
	assert_equal "${#lines[@]}" 3
	assert_equal "${lines[0]}" "# invalid: line 1: a NUL byte at column 1"
	assert_equal "${lines[1]}" "$(head -n 1 "$DATA/easy9.solutions")"
	assert_equal "${lines[2]}" "# invalid: line 3: a NUL byte at column 3"
}

@test "--timeout is --time-limit, the racer's word for it" {
	run sudoku-cp --timeout 0.2 "$DATA/hard25.txt"
	assert_failure 1
	assert_output "# timeout after 0.2 s"
	run sudoku-cp --help
	assert_line --regexp '^ +--timeout=SECS +the same'
}

@test "--json: an object per puzzle with sudoku-race --json's keys, in both filter paths" {
	printf '1.....3..4.....2\nxyz\n11..............\n' >"$BATS_TEST_TMPDIR/mix.txt"
	f=$BATS_TEST_TMPDIR/mix.txt
	run sudoku-cp --json "$f"
	assert_failure 1
	assert_equal "${#lines[@]}" 3
	# the times vary: checked for their form, then left out
	for l in "${lines[@]}"; do [[ $l =~ ,\"worker_ms\":[0-9]+\.[0-9]{3},\"ms\":[0-9]+\.[0-9]{3}\}$ ]]; done
	run sed 's/,"worker_ms".*//' <<<"$output"
	assert_line --index 0 "{\"line\":1,\"file\":\"$f\",\"puzzle\":\"1.....3..4.....2\",\"status\":\"solved\",\"solution\":\"1324423124133142\",\"reason\":null,\"unique\":null,\"winner\":\"cp\""
	assert_line --index 1 "{\"line\":2,\"file\":\"$f\",\"status\":\"invalid\",\"solution\":null,\"reason\":\"line 2: 3 cells, expected 16\",\"winner\":null"
	assert_line --index 2 "{\"line\":3,\"file\":\"$f\",\"puzzle\":\"11..............\",\"status\":\"unsat\",\"solution\":null,\"reason\":\"line 3: value 1 twice in row 1 (row 1 column 1, row 1 column 2)\",\"winner\":\"cp\""
	# counting says whether the solution is unique
	run bash -c "printf '1...............\n' | sudoku-cp --json --count | sed 's/,\"worker_ms\".*//'"
	assert_output '{"line":1,"puzzle":"1...............","status":"multiple","solution":"1234341221434321","reason":"multiple solutions: at least 2","unique":false,"winner":"cp"'
	# the batch pipeline (sudoku-spin-batch: every search runs to the limit)
	run "$top_builddir/tests/sudoku-spin-batch" --json --time-limit 0.1 "$f"
	assert_failure 1
	run sed 's/,"worker_ms".*//' <<<"$output"
	assert_line --index 0 "{\"line\":1,\"file\":\"$f\",\"puzzle\":\"1.....3..4.....2\",\"status\":\"timeout\",\"solution\":null,\"reason\":\"timeout after 0.1 s\",\"winner\":null"
	assert_line --index 1 "{\"line\":2,\"file\":\"$f\",\"status\":\"invalid\",\"solution\":null,\"reason\":\"line 2: 3 cells, expected 16\",\"winner\":null"
	run sudoku-cp --json --pretty "$f"
	assert_failure 2
	assert_output --partial "--json goes with neither --protocol nor --pretty"
}

@test "--json is valid UTF-8: a Latin-1 file name's byte is U+FFFD, in both filter paths" {
	command -v python3 >/dev/null || skip "python3 is needed"
	f="$BATS_TEST_TMPDIR/caf$(printf '\351')"$'\001'"-$(printf '\303\251').txt"
	printf '1.....3..4.....2\nxyz\n' >"$f"
	want="'$BATS_TEST_TMPDIR/caf\\ufffd\\x01-\\xe9.txt'"
	sudoku-cp --json "$f" >"$BATS_TEST_TMPDIR/out" || true
	run utf8_json_lines "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line --index 0 "$want None"
	assert_line --index 1 "$want 'line 2: 3 cells, expected 16'"
	"$top_builddir/tests/sudoku-spin-batch" --json --time-limit 0.1 "$f" >"$BATS_TEST_TMPDIR/out" || true
	run utf8_json_lines "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line --index 0 "$want 'timeout after 0.1 s'"
	assert_line --index 1 "$want 'line 2: 3 cells, expected 16'"
}
