#!/usr/bin/env bats
# sudoku-acs beyond the conformance suite: the ant colony of
# seeds/ant-colony-bve.txt 3.2 with its options. Every run is bounded by a
# seed and a time limit or an iteration count.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	LOGIC="$top_srcdir/puzzles/acs-logic-solvable.txt"
	HARD25="$DATA/hard25.txt"
}

acs() {
	sudoku-acs --time-limit 60 "$@"
}

# The solution lines of a protocol session without their times.
solutions_without_ms() {
	sed -n 's/ ms=[0-9.]*$//; /^solution /p'
}

@test "the 16 named logic-solvable 9x9 instances of 4.2 are solved with a fixed seed" {
	run acs --seed 1 "$LOGIC"
	assert_success
	assert_equal "${#lines[@]}" 16
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$LOGIC" "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line "16 ok, 0 none, 0 wrong"
}

@test "the same seed gives the same run: same answers, same number of choices" {
	{
		sed -n '/^[^#]/p' "$LOGIC" | head -n 6
		sed -n '/^[^#]/p' "$top_srcdir/puzzles/acs-16x16-45.txt" | head -n 3
	} | awk '{ print "solve p" NR " " $1 " seed=7" }' >"$BATS_TEST_TMPDIR/in"
	sudoku-acs --protocol <"$BATS_TEST_TMPDIR/in" | solutions_without_ms >"$BATS_TEST_TMPDIR/a"
	sudoku-acs --protocol <"$BATS_TEST_TMPDIR/in" | solutions_without_ms >"$BATS_TEST_TMPDIR/b"
	run wc -l <"$BATS_TEST_TMPDIR/a"
	assert_output 9
	run diff "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	assert_success
	# and the filter's --seed is the same seed
	run acs --seed 7 "$top_srcdir/puzzles/acs-16x16-45.txt"
	assert_success
	assert_equal "${lines[0]}" "$(sed -n '7s/^solution p7 \([^ ]*\) .*/\1/p' "$BATS_TEST_TMPDIR/a")"
}

@test "another seed gives another run" {
	puzzle=$(sed -n '/^# aiescargot/{n;p}' "$LOGIC")
	a=$(echo "solve a $puzzle seed=1" | sudoku-acs --protocol | solutions_without_ms)
	b=$(echo "solve a $puzzle seed=2" | sudoku-acs --protocol | solutions_without_ms)
	[[ $a == "solution a "* && $b == "solution a "* ]]
	[ "${a##* nodes=}" != "${b##* nodes=}" ]
}

@test "--iterations bounds the search and says how far it got" {
	run acs --seed 1 --iterations 3 "$HARD25"
	assert_failure 1
	assert_output --regexp '^# gave up: 3 iterations, best [0-9]+/625 cells fixed$'
}

@test "--no-bve: the paper's ablation solves, and the best value never evaporates" {
	# the ten sabuncu instances, which 4.4 finds about as easy without BVE
	# (the six hard ones can take it minutes: that is the ablation's point)
	sed -n '/^# sabuncu/{p;n;p}' "$LOGIC" >"$BATS_TEST_TMPDIR/in"
	run acs --seed 1 --no-bve "$BATS_TEST_TMPDIR/in"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	assert_line "10 ok, 0 none, 0 wrong"
	# dtau_best: with BVE it falls between improvements (eq. 7), without it never does
	for v in bve no-bve; do
		sudoku-acs --seed 1 --$v --iterations 400 --progress --progress-ms 10 "$HARD25" \
			2>"$BATS_TEST_TMPDIR/$v.err" >/dev/null || true
		sed -n 's/.* dtau=\([0-9.e+]*\) .*/\1/p' "$BATS_TEST_TMPDIR/$v.err" >"$BATS_TEST_TMPDIR/$v.dtau"
	done
	run awk 'NR > 1 && $1 < prev { falls++ } { prev = $1 } END { print NR, falls + 0 }' "$BATS_TEST_TMPDIR/no-bve.dtau"
	[[ $output =~ ^([0-9]+)\ 0$ ]]
	[ "${BASH_REMATCH[1]}" -ge 2 ]
	run awk 'NR > 1 && $1 < prev { falls++ } { prev = $1 } END { print falls + 0 }' "$BATS_TEST_TMPDIR/bve.dtau"
	[ "$output" -ge 1 ]
}

@test "--greedy textbook (greedy when q <= q0) solves too" {
	run acs --seed 1 --greedy textbook "$LOGIC"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$LOGIC" "$BATS_TEST_TMPDIR/out"
	assert_line "16 ok, 0 none, 0 wrong"
}

@test "every parameter is an option, with the paper's defaults" {
	sudoku-acs --help | unwrap_help >"$BATS_TEST_TMPDIR/help"
	run cat "$BATS_TEST_TMPDIR/help"
	assert_line --regexp '^  --ants=N .*\(default 10\)$'
	assert_line --regexp '^  --rho=X .*\(default 0\.9\)$'
	assert_line --regexp '^  --q0=X .*\(default 0\.9\)$'
	assert_line --regexp '^  --xi=X .*\(default 0\.1\)$'
	assert_line --regexp '^  --fbve=X .*\(default 0\.005\)$'
	assert_line --regexp '^  --\[no-\]bve .*\(default on\)$'
	assert_line --regexp '^  --greedy=paper\|textbook .*\(default paper\)$'
	assert_line --regexp '^  --restart=N .*\(default 0\)$'
	# and they are used: other settings, other runs (choices counted in
	# nodes=) on the six hard named instances, which take many iterations
	sed -n '/^[^#]/p' "$LOGIC" | head -n 6 | awk '{ print "solve p" NR " " $1 " seed=1" }' \
		>"$BATS_TEST_TMPDIR/in"
	sudoku-acs --protocol --time-limit 60 <"$BATS_TEST_TMPDIR/in" | solutions_without_ms >"$BATS_TEST_TMPDIR/base"
	run wc -l <"$BATS_TEST_TMPDIR/base"
	assert_output 6
	for o in "--ants 3" "--rho 0.5" "--q0 0.5" "--xi 0.3" "--fbve 0.05" "--tau0 0.5" \
		"--greedy textbook" "--restart 5"; do
		# shellcheck disable=SC2086
		sudoku-acs --protocol --time-limit 60 $o <"$BATS_TEST_TMPDIR/in" |
			solutions_without_ms >"$BATS_TEST_TMPDIR/other"
		run wc -l <"$BATS_TEST_TMPDIR/other"
		assert_output 6
		! cmp -s "$BATS_TEST_TMPDIR/base" "$BATS_TEST_TMPDIR/other" || { echo "$o changed nothing"; false; }
	done
}

@test "--restart: a stagnated colony starts afresh (and never without it)" {
	for r in 0 3; do
		sudoku-acs --seed 1 --restart $r --iterations 200 --progress --progress-ms 10 "$HARD25" \
			2>"$BATS_TEST_TMPDIR/err" >/dev/null || true
		run sed -n '$s/.* restarts=\([0-9]*\) .*/\1/p' "$BATS_TEST_TMPDIR/err"
		if [ $r = 0 ]; then assert_output 0; else [ "$output" -ge 1 ]; fi
	done
}

@test "options are validated: a usage error names the option" {
	for bad in "--ants 0" "--ants 2.5" "--rho 1.5" "--q0 -0.1" "--xi x" "--fbve 2" \
		"--tau0 -1" "--greedy sometimes" "--iterations -3" "--restart 1.5"; do
		# shellcheck disable=SC2086
		run --separate-stderr sudoku-acs $bad "$LOGIC"
		assert_failure 2
		assert_equal "$output" ""
		[[ $stderr == *"--${bad%% *}"* || $stderr == *"${bad%% *}"* ]] || { echo "$bad: $stderr"; false; }
	done
}

@test "progress: iteration, best cells fixed / c, cost, dtau_best" {
	run --separate-stderr sudoku-acs --seed 1 --iterations 300 --progress --progress-ms 10 "$HARD25"
	assert_failure 1
	[[ $stderr =~ iter=[0-9]+\ filled=[0-9]+/625\ cost=[0-9]+\ dtau=[0-9.e+]+\ iter_filled=[0-9]+\ choices=[0-9]+ ]]
	# filled + cost = c
	line=$(grep -m 1 -o 'filled=[0-9]*/625 cost=[0-9]*' <<<"$stderr")
	[[ $line =~ filled=([0-9]+)/625\ cost=([0-9]+) ]]
	[ $((BASH_REMATCH[1] + BASH_REMATCH[2])) -eq 625 ]
}

@test "a contradiction found by propagation: '# gave up: unsat', no search" {
	# row 1 leaves only 9 for its last cell, and column 9 has a 9
	run acs --seed 1 <<<"12345678.........9$(printf '.%.0s' $(seq 1 63))"
	assert_failure 1
	assert_output "# gave up: unsat (constraint propagation)"
}

@test "any size: 4x4, 16x16, 25x25 and 36x36 puzzles" {
	for f in 4x4 16x16 25x25 36x36; do
		run acs --seed 1 "$DATA/$f.txt"
		assert_success
		echo "$output" >"$BATS_TEST_TMPDIR/out"
		run verify "$DATA/$f.txt" "$BATS_TEST_TMPDIR/out"
		assert_line "1 ok, 0 none, 0 wrong"
	done
}

@test "a blank 64x64 grid: cancel is acknowledged at once" {
	grid=$(printf '0%.0s,' $(seq 1 4095))0
	start_session sudoku-acs --protocol --seed 1
	expect_line '^hello '
	send "solve big $grid progress_ms=20"
	# the search running (its progress says so), not a fixed sleep
	expect_line '^progress big ' 10
	cancel_within big 1000 '^solution big '
}

@test "the time limit ends a search out of reach with '# gave up'" {
	run sudoku-acs --seed 1 --time-limit 0.3 "$HARD25"
	assert_failure 1
	assert_output "# gave up after 0.3 s"
}
