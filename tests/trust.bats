#!/usr/bin/env bats
# Verdicts that need proof: a solution is verified, but "no solution" and a
# count are final only when a complete worker of another program says the
# same; a claim disproved by a verified solution is a lie, and its worker
# is left out. Fakes: fake-nayer says "no solution" to everything,
# fake-unique says "exactly one" to everything. Every test checks that
# nothing is left running.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	T=$BATS_TEST_TMPDIR
	printf '%081d\n' 0 | tr 0 . >"$T/empty.txt"
}

@test "a worker that says 'no solution' to solvable puzzles loses, is named once and left out" {
	run --separate-stderr race --stats --presolver=fake-nayer --workers fake-nayer,dlx "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(grep -c 'worker fake-nayer: claimed no solution for .*easy9.txt: line [0-9], disproved by dlx; left out from now on' <<<"$stderr")" 1
	grep -q '^fake-nayer *disabled: claimed no solution' <<<"$stderr"
}

@test "a lie is never cached: the same puzzles from that cache, with dlx alone, are solved" {
	run --separate-stderr sudoku-race --cache "$T/c" --presolver fake-nayer --workers fake-nayer,dlx "$DATA/easy9.txt"
	assert_success
	run --separate-stderr sudoku-race --cache "$T/c" --workers dlx "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
}

@test "'no solution' confirmed by a second program: # unsat, confirmed, both named" {
	run --separate-stderr race --json --stats --workers cp,dlx "$DATA/unsat9.txt"
	assert_failure 1
	assert_output --partial '"status":"unsat"'
	assert_output --partial '"confirmed":true,"provers":"cp+dlx"'
	assert_equal "$(grep -c 'verdicts confirmed: 1 by a second program, 0 not, 0 lies caught' <<<"$stderr")" 1
	run --separate-stderr race --workers cp,dlx "$DATA/unsat9.txt"
	assert_output --regexp '^# unsat'
}

@test "with one complete worker, 'no solution' is said unconfirmed and not cached" {
	run --separate-stderr sudoku-race --cache "$T/c" --json --stats --workers cp "$DATA/unsat9.txt"
	assert_failure 1
	assert_output --partial '"status":"unsat"'
	assert_output --partial '"confirmed":false,"provers":null'
	grep -q 'verdicts confirmed: 0 by a second program, 1 not' <<<"$stderr"
	grep -q 'cache: 0 hits, 1 misses, 0 bad entries dropped, 0 written' <<<"$stderr"
	# confirmed later, it is stored and served as proved
	run --separate-stderr sudoku-race --cache "$T/c" --stats --workers cp,dlx "$DATA/unsat9.txt"
	grep -q ' 1 written' <<<"$stderr"
	run --separate-stderr sudoku-race --cache "$T/c" --json --workers cp "$DATA/unsat9.txt"
	assert_output --partial '"confirmed":true,"provers":"cp+dlx"'
	assert_output --partial '"cache":true'
}

@test "--count: 'exactly one' for the empty grid is disproved by a second, different solution" {
	for schedule in --presolver=fake-unique --schedule=all; do
		run --separate-stderr race --count --json --stats $schedule --workers fake-unique,dlx "$T/empty.txt"
		assert_failure 1
		assert_output --partial '"status":"multiple"'
		assert_output --partial '"unique":false,"count":2,"count_limit":2,"confirmed":true'
		assert_equal "$(grep -c 'worker fake-unique: claimed a unique solution for .*empty.txt: line 1, disproved by two different verified solutions' <<<"$stderr")" 1
	done
}

@test "--count: a count is confirmed by a second program" {
	run --separate-stderr race --count --json --stats --workers cp,dlx "$DATA/easy9.txt"
	assert_success
	assert_equal "$(grep -c '"unique":true,"count":1,"count_limit":2,"confirmed":true,"provers":"cp+dlx"' <<<"$output")" 3
	run --separate-stderr race --count --workers cp,dlx "$T/empty.txt"
	assert_output '# multiple solutions: at least 2'
}

@test "a clash of givens needs no second program: the racer checks it itself" {
	printf '11...............................................................................\n' >"$T/clash.txt"
	run --separate-stderr race --json --workers cp "$T/clash.txt"
	assert_failure 1
	assert_output --partial '"confirmed":true'
}

@test "the reader of standard output gone: every worker stops at once, not at the next answer" {
	# the first puzzle answered at once, the others after 60 s
	head -n 1 "$DATA/easy9.txt" >"$T/in"
	for i in 1 2 3; do tail -n 2 "$DATA/easy9.txt"; done >>"$T/in"
	paste -d' ' "$DATA/easy9.txt" "$DATA/easy9.solutions" | sed '1s/$/ 0/; 2,$s/$/ 60/' >"$T/answers"
	run timeout 20 bash -c "sudoku-race --no-cache -j 2 --workers 'fake-slowpoke:answers=$T/answers' '$T/in' | head -n 1"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "an unsat in the cache that says no provers (--trust, or a store of 0.1) is raced again" {
	p=$(head -n 1 "$DATA/easy9.txt")
	echo "$p unsat winner=nayer" >"$T/forged"
	run --separate-stderr sudoku-race --cache "$T/c" cache import --trust "$T/forged"
	assert_success
	run --separate-stderr sudoku-race --cache "$T/c" --stats --workers dlx <(echo "$p")
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "--count over thousands of puzzles: every confirmation waits for the fastest confirmer" {
	# more claims than the confirmer's processes hold at once; before, a
	# confirmation that found dlx full went on to bf, which takes minutes
	# to count a 17-clue puzzle, and the run stopped answering
	# (a budget no busy machine exceeds: bf gets no puzzle by escalation.
	# With the learned one, 20 ms at first, a loaded machine escalated a
	# puzzle now and then, and bf raced it: 2 runs of 6 beside three busy
	# loops, once in 5 runs of make check)
	xz -dc "$top_srcdir/puzzles/9x9/puzzles2_17_clue.xz" | grep -v '^#' | head -n 3000 >"$T/p"
	run --separate-stderr timeout 120 sudoku-race --no-cache --count --stats -j 2 --budget 10 \
		--workers cp,dlx,bf "$T/p"
	assert_success
	assert_equal "$(grep -vc '^#' <<<"$output")" 3000
	grep -q 'verdicts confirmed: 3000 by a second program, 0 not, 0 lies caught' <<<"$stderr"
	grep -Eq '^bf +0 ' <<<"$stderr"
	# the confirmer has as many processes as the presolver
	grep -q 'processes started: cp x2, dlx x2$' <<<"$stderr"
}

@test "a program is its executable and options, not its spelling: it never confirms itself" {
	# the same nay-sayer twice, by name and by path: no second program says
	# "no solution" to the empty grid, so the claim stands unconfirmed and
	# is not cached
	local nayer
	nayer=$(command -v fake-nayer)
	run --separate-stderr sudoku-race --cache "$T/c" --json --workers "fake-nayer,$nayer" "$T/empty.txt"
	assert_failure 1
	assert_output --partial '"status":"unsat"'
	assert_output --partial '"confirmed":false'
	run --separate-stderr sudoku-race --cache "$T/c" --json --workers "fake-nayer,$nayer,cp" "$T/empty.txt"
	assert_success
	assert_output --partial '"status":"solved"'
	# nor through a symbolic link, or a hard link where the file system
	# takes one (the same device and inode)
	ln -s "$nayer" "$T/nayer-symlink"
	ln "$nayer" "$T/nayer-hardlink" 2>/dev/null || cp -p "$nayer" "$T/nayer-hardlink"
	for other in "$T/nayer-symlink" "$T/nayer-hardlink"; do
		[ "$other" = "$T/nayer-hardlink" ] && [ "$(stat -c %i "$nayer")" != "$(stat -c %i "$other")" ] && continue
		run --separate-stderr sudoku-race --no-cache --json --workers "fake-nayer,$other" "$T/empty.txt"
		assert_failure 1
		assert_output --partial '"confirmed":false'
	done
}
