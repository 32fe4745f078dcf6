#!/usr/bin/env bats
# sudoku-race under faults (issue 29): no answer lost to a dying worker.
# Racer tests with fake workers that die; every test checks that nothing it
# started is left running.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	T=$BATS_TEST_TMPDIR
	slowpoke_answers
}

@test "a presolver that dies with a queue: every puzzle queued on it is raced again, none unsolved" {
	for i in $(seq 1 10); do cat "$DATA/easy9.txt"; done >"$T/in"
	# one presolver process: it dies after its second answer (once), with
	# the rest of the file queued on it; the other entry would take 30 s
	run --separate-stderr race --stats -j 1 --budget 20 --timeout 10 \
		--presolver "fake-slowpoke:answers=$T/answers:delay=0.01:die-after=2:once=$T/died" \
		--workers "fake-slowpoke:answers=$T/answers:delay=0.01:die-after=2:once=$T/died","$(slowpoke 30)" "$T/in"
	assert_success
	[ -e "$T/died" ]
	printf '%s\n' "${lines[@]}" >"$T/out"
	run verify "$T/in" "$T/out"
	assert_line "30 ok, 0 none, 0 wrong"
	[[ $(summary_of schedule <<<"$stderr") == *"30 puzzles answered by the presolver alone, 0 escalated"* ]]
}

@test "a presolver SIGKILLed in a run of hard puzzles: nothing unsolved" {
	# a run of a few seconds: the hard puzzles ten times over
	local n i
	for i in $(seq 1 10); do
		xz -dc "$top_srcdir/puzzles/9x9/puzzles6_forum_hardest_1106.xz" | grep -v "^#"
	done >"$T/in"
	n=$(wc -l <"$T/in")
	race -j 2 --workers cp,eda --budget 0.001 "$T/in" >"$T/out" 2>"$T/err" &
	local racer=$! pid=
	# a presolver process of this test's racer (awk's status is 0 whatever
	# it finds: the poll goes on under set -e)
	for i in $(seq 1 200); do
		pid=$(leftovers | awk '$2 == "sudoku-cp" { print $1; exit }')
		[ -n "$pid" ] && break
		sleep 0.02
	done
	[ -n "$pid" ]
	sleep 0.1
	kill -KILL "$pid" 2>/dev/null || true
	wait "$racer"
	run verify "$T/in" "$T/out"
	assert_line "$n ok, 0 none, 0 wrong"
}

@test "a closed standard output is an error, not answers thrown away" {
	run --separate-stderr bash -c 'sudoku-race --no-cache "$1" >&-' _ "$DATA/easy9.txt"
	assert_failure 2
	assert_equal "$stderr" "sudoku-race: standard output is closed: the answers would be lost"
}

@test "a worker entry whose options make it print and leave (cp:help) is a usage error" {
	run --separate-stderr race --workers cp:help "$DATA/easy9.txt"
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "sudoku-race: --workers: 'cp:help': the worker did not start with its options (no hello)"
}

@test "a line that never ends is said invalid as it passes the bound (< /dev/zero)" {
	run --separate-stderr bash -c 'timeout 20 sudoku-race --no-cache </dev/zero | head -n 1'
	assert_output "# invalid: line 1: longer than 65536 bytes"
}

@test "the PATH's empty and relative elements are never searched for workers" {
	cd "$T"
	printf '#!/bin/sh\necho "hello zz 1 proto=1 kind=complete sizes=3-3 device=cpu"\ncat >/dev/null\n' >sudoku-zz
	chmod +x sudoku-zz
	run --separate-stderr env PATH=".:$PATH" sudoku-race --no-cache --workers zz "$DATA/easy9.txt"
	assert_failure 2
	[[ $stderr == *"no worker program 'zz'"* ]]
	run --separate-stderr env PATH=":$PATH" sudoku-race --no-cache --workers zz "$DATA/easy9.txt"
	assert_failure 2
}

@test "the default portfolio never takes a worker from the current directory through the PATH" {
	skip_if_wrapped "copies the racer program"
	# an installed racer with cp beside it, no GPU worker; a sudoku-gpu in
	# the current directory (the racer of ddd04c0 listed ./sudoku-gpu as
	# available, and raced it)
	mkdir -p "$T/bin" "$T/here"
	cp "$(command -v sudoku-race)" "$(command -v sudoku-cp)" "$T/bin/"
	printf '#!/bin/sh\necho "hello gpu 1 proto=1 kind=complete sizes=2-8 device=gpu"\ncat >/dev/null\n' \
		>"$T/here/sudoku-gpu"
	chmod +x "$T/here/sudoku-gpu"
	cd "$T/here"
	for path in ".:/usr/bin:/bin" ":/usr/bin:/bin" "/usr/bin:/bin:" "/usr/bin::/bin"; do
		run --separate-stderr env PATH="$path" "$T/bin/sudoku-race" --list-workers
		assert_success
		assert_line --regexp "^gpu:method=cpw +- +- +- +unavailable: not found$"
		refute_output --partial "sudoku-gpu"
		run --separate-stderr env PATH="$path" "$T/bin/sudoku-race" --no-cache --stats "$DATA/easy9.txt"
		assert_success
		assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
		[[ $(summary_of "processes started" <<<"$stderr") != *gpu* ]]
	done
}

@test "workers that the system will not start: the reason is said, on every answer too" {
	# room for the racer's own descriptors, none for a worker's pipes (the
	# test's own, from 3 up, closed first)
	run --separate-stderr bash -c 'for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done
		ulimit -n 7; sudoku-race --no-cache <"$1"' _ "$DATA/easy9.txt"
	assert_failure 1
	assert_line --index 0 "# unsupported: line 1: no available worker takes 9x9 grids (cp: failed to start 4 times in a row: cannot make its pipes: Too many open files)"
	assert_equal "$(grep -c 'worker cp: cannot make its pipes: Too many open files$' <<<"$stderr")" 1
}

@test "workers that the system will not fork (EAGAIN): the reason is said, on every answer too" {
	skip_if_wrapped "copies the racer program"
	# a user of its own (nobody), allowed two processes: the shell and the
	# racer, no worker; as root only (a user's own processes would count)
	[ "$(id -u)" -eq 0 ] || skip "needs root, to run the racer as a user whose processes it counts"
	command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"
	d=$(mktemp -d "${TMPDIR:-/tmp}/eagain.XXXXXX")
	cp "$(command -v sudoku-race)" "$(command -v sudoku-cp)" "$DATA/easy9.txt" "$d/"
	chmod 755 "$d"
	chmod 644 "$d/easy9.txt"
	# (LeakSanitizer's check at the end needs a process of its own: none
	# here)
	run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		setpriv --reuid 65534 --regid 65534 --clear-groups \
		bash -c 'ulimit -u 2; cd "$1" && ./sudoku-race --no-cache <easy9.txt' _ "$d"
	rm -rf "$d"
	assert_failure 1
	assert_line --index 0 "# unsupported: line 1: no available worker takes 9x9 grids (cp: failed to start 4 times in a row: cannot start it: Resource temporarily unavailable)"
	[[ $stderr == *"worker cp: cannot start it: Resource temporarily unavailable"* ]]
}

@test "a disk that fails the store's writes (EIO): the reason is named once, the race goes on without the cache" {
	skip_if_wrapped "preloads a library into the racer"
	"$top_builddir/tools/sudoku-generate" --box=3 --keep=0.45 --number=200 --seed=5 | grep -v '^#' >"$T/p"
	sudoku-cp "$T/p" >"$T/s"
	sudoku-race --cache "$T/c" "$DATA/easy9.txt" >/dev/null # the store is there
	# the sanitizers want their runtime first in the list of libraries
	run --separate-stderr env EIO_STORE=1 LD_PRELOAD="$top_builddir/tests/eio-store.so" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		sudoku-race --cache "$T/c" --stats "$T/p"
	assert_success
	assert_equal "$output" "$(cat "$T/s")"
	assert_equal "$(grep -c 'Input/output error' <<<"$stderr")" 1
	[[ $stderr == *"sudoku-race: cache: cannot write: Input/output error; going on without the cache"* ]]
	# a failing disk is not a damaged store: nothing set aside, and what
	# was written before is there
	[ -z "$(find "$T/c" -name '*damaged*')" ]
	run --separate-stderr sudoku-race --cache "$T/c" --stats "$DATA/easy9.txt"
	assert_success
	[[ $stderr == *"cache: 3 hits, 0 misses"* ]]
}

@test "the cancel grace follows the worker: one that acknowledges slower as its machine gets busy is waited for, not killed" {
	# Its first cancel is acknowledged in 0.5 s, the others in 1.4 s: past
	# --grace 1 (a fixed grace kills it at the second), within 4 times the
	# slowest acknowledgement it gave (2 s). cp answers every puzzle first,
	# so the fake's attempt is cancelled each time; the puzzles after the
	# first come once the fake said hello, 0.3 s apart, so that the run
	# lasts past the acknowledgements.
	for i in 1 2 3 4; do cat "$DATA/easy9.txt"; done >"$T/in"
	for i in 1 2 3 4; do cat "$DATA/easy9.solutions"; done >"$T/expected"
	fake="$(slowpoke 30):cancel-lags=0.5/1.4"
	run_files race --stats --schedule all --grace 1 --workers cp,"$fake" < <(
		feed_after "$T/in" said_hello fake-slowpoke | while read -r line; do
			echo "$line"
			sleep 0.3
		done
	)
	[ "$status" -eq 0 ]
	assert_equal "$output" "$(cat "$T/expected")"
	# it acknowledged cancels slower than --grace, and was never killed
	[ "$(stat_of "$fake" cancelled <<<"$stderr")" -ge 3 ]
	[ "$(stat_of "$fake" killed <<<"$stderr")" = 0 ]
}
