#!/usr/bin/env bats
# sudoku-race --shards: one input file cut into parts, each raced by a
# sudoku-race of its own (--byte-range, --line-offset), the answers merged
# in input order. The output must be the one an unsharded run gives, byte
# for byte; the parts must really run, end with the racer, and a part lost
# must never leave a hole in the output. Every test checks that no racer,
# part, worker or fake is left running.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/xdg"
	T=$BATS_TEST_TMPDIR
	slowpoke_answers
}

# repeat N FILE...: the FILEs one after the other, N times
repeat() {
	local n=$1
	shift
	awk -v n="$n" 'FNR == 1 { f++ } { l[f, FNR] = $0; c[f] = FNR }
		END { for (i = 0; i < n; i++) for (j = 1; j <= f; j++) for (k = 1; k <= c[j]; k++) print l[j, k] }' "$@"
}

# mixed_file FILE: six blocks of 450 easy puzzles, each with a comment, a
# blank line, and in its middle a short line, a bad character, a line that
# starts a 4x4 grid cut short, and a clash (whatever the parts, every part
# has some): 2736 lines, 2724 answers
mixed_file() {
	local good blk
	good=$(head -n 1 "$DATA/easy9.txt")
	for blk in 1 2 3 4 5 6; do
		echo "# block $blk"
		repeat 75 "$DATA/easy9.txt"
		echo
		echo "${good:0:80}"
		echo "${good:0:80}!"
		echo 1234
		echo "44${good:2}"
		repeat 75 "$DATA/easy9.txt"
	done >"$1"
}

# race_into FILE ARGS...: the racer without a cache, its standard output
# in FILE, its standard error in FILE.err, its exit status in $rc
race_into() {
	local f=$1
	shift
	rc=0
	race "$@" >"$f" 2>"$f.err" || rc=$?
}

# no_timing FILE: FILE's JSON objects without what depends on the times:
# the times, and the stage (a puzzle of the presolver's is "escalated" when
# its answer came after the budget, as it may on a loaded machine)
no_timing() {
	sed -E 's/"(worker_)?ms":[0-9.]+//g; s/"stage":"[a-z]*"//' "$1"
}

# wrapper: a worker entry that is sudoku-cp, and logs each start of it (its
# pid, a line of $T/starts)
wrapper() {
	if [ ! -x "$T/cp-wrapper" ]; then
		printf '#!/bin/sh\necho $$ >>"%s"\nexec sudoku-cp "$@"\n' "$T/starts" >"$T/cp-wrapper"
		chmod +x "$T/cp-wrapper"
	fi
	echo "$T/cp-wrapper"
}

# starts: how many different processes of the wrapper were started (and
# forgets them)
starts() {
	if [ -f "$T/starts" ]; then
		sort -u "$T/starts" | wc -l
		rm "$T/starts"
	else
		echo 0
	fi
}

# parts: the pids of this test's parts, racers with a --byte-range on their
# command line, one a line
parts() {
	local pid
	for pid in $(leftovers | awk '$2 == "sudoku-race" { print $1 }'); do
		if tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -q '^--byte-range='; then
			echo "$pid"
		fi
	done
	return 0
}

# part_args PID: the part's own arguments (--byte-range, --line-offset,
# --jobs, --shards), on one line
part_args() {
	tr '\0' '\n' <"/proc/$1/cmdline" | grep -E '^--(byte-range|line-offset|jobs|shards)=' | paste -sd' '
}

# part_at FROM: the pid of the part whose byte range starts at FROM
part_at() {
	local pid
	for pid in $(parts); do
		if tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "^--byte-range=$1-"; then
			echo "$pid"
			return 0
		fi
	done
	return 1
}

# count COMM: how many processes of this test by the name COMM run
count() {
	leftovers | awk -v c="$1" '$2 == c { n++ } END { print n + 0 }'
}

# hellos COMM: how many processes of this test by the name COMM have
# written something (said hello)
hellos() {
	local pid bytes n=0
	for pid in $(leftovers | awk -v c="$1" '$2 == c { print $1 }'); do
		bytes=$(sed -n 's/^wchar: //p' "/proc/$pid/io" 2>/dev/null) || continue
		if [ "${bytes:-0}" -gt 0 ]; then
			n=$((n + 1))
		fi
	done
	echo "$n"
}

# gone PID: process PID has ended (reaped or not)
gone() {
	local state
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 0
	[ -z "$state" ] || [ "$state" = Z ]
}

# wait_within SECONDS PID: waits for the background job PID to end, its
# exit status in $status; after SECONDS it is killed and the test fails
# (a racer that waits for ever for its parts must not hang the suite)
wait_within() {
	if ! poll "$1" gone "$2"; then
		kill -KILL "$2" 2>/dev/null || true
		wait "$2" || true
		return 1
	fi
	status=0
	wait "$2" || status=$?
}

@test "--shards 2 and 3: the answers of an unsharded run, byte for byte, and its exit status" {
	mixed_file "$T/in"
	race_into "$T/one" --shards 1 "$T/in"
	assert_equal "$rc" 1
	# the input is what it should be: every puzzle answered, six of each bad line
	assert_equal "$(wc -l <"$T/one")" 2724
	assert_equal "$(grep -c ': 80 cells, expected 81$' "$T/one")" 6
	assert_equal "$(grep -c "illegal character '!'" "$T/one")" 6
	assert_equal "$(grep -c '^# unsat: ' "$T/one")" 6
	for n in 2 3; do
		race_into "$T/out$n" --shards "$n" "$T/in"
		assert_equal "$rc" 1
		cmp "$T/one" "$T/out$n"
		assert_equal "$(cat "$T/out$n.err")" ""
	done
	# the numbers in the '#' lines are the whole file's
	grep -nx '.\{80\}' "$T/in" | cut -d: -f1 | sed "s|^|# invalid: $T/in: line |; s|\$|: 80 cells, expected 81|" \
		>"$T/short"
	assert_equal "$(grep ': 80 cells' "$T/out3")" "$(cat "$T/short")"
	# all solved: 0, as unsharded
	grep -v -e '^#' -e '^$' "$T/in" | grep -x '[.0-9]\{81\}' | grep -v '^44' >"$T/good"
	race_into "$T/good1" --shards 1 "$T/good"
	assert_equal "$rc" 0
	race_into "$T/good3" --shards 3 "$T/good"
	assert_equal "$rc" 0
	cmp "$T/good1" "$T/good3"
	# a bad line in the first part alone: 1 all the same
	{ echo 12345; cat "$T/good"; } >"$T/first"
	race_into "$T/first3" --shards 3 "$T/first"
	assert_equal "$rc" 1
	assert_equal "$(head -n 1 "$T/first3")" "# invalid: $T/first: line 1: 5 cells, expected 16"
	assert_equal "$(wc -l <"$T/first3")" "$(wc -l <"$T/first")"
}

@test "--shards with --json and --line-offset 1000: the same objects, the whole file's line numbers" {
	mixed_file "$T/in"
	# cp alone: the same winner and outcomes, however long a puzzle takes
	race_into "$T/one" --workers cp --json --line-offset 1000 --shards 1 "$T/in"
	assert_equal "$rc" 1
	race_into "$T/three" --workers cp --json --line-offset 1000 --shards 3 "$T/in"
	assert_equal "$rc" 1
	assert_equal "$(wc -l <"$T/three")" 2724
	# the same but for the times
	diff <(no_timing "$T/one") <(no_timing "$T/three")
	# the short lines' numbers: the file's, plus 1000
	grep -nx '.\{80\}' "$T/in" | cut -d: -f1 | awk '{ print $1 + 1000 }' >"$T/expected"
	grep '"reason":"line [0-9]*: 80 cells' "$T/three" | sed 's/^{"line":\([0-9]*\),.*/\1/' >"$T/got"
	cmp "$T/expected" "$T/got"
	# and in the text lines
	race_into "$T/text" --line-offset 1000 --shards 3 "$T/in"
	assert_equal "$rc" 1
	assert_equal "$(grep -o 'line [0-9]*: 80 cells' "$T/text" | cut -d' ' -f2 | tr -d :)" "$(cat "$T/expected")"
}

@test "--shards N -j N: N parts, each with a presolver process of its own; --shards 1: one" {
	mixed_file "$T/in"
	race_into "$T/one" --workers "$(wrapper)" -j 1 --shards 1 "$T/in"
	assert_equal "$rc" 1
	assert_equal "$(starts)" 1
	race_into "$T/two" --workers "$(wrapper)" -j 2 --shards 2 "$T/in"
	assert_equal "$rc" 1
	assert_equal "$(starts)" 2
	cmp "$T/one" "$T/two"
	race_into "$T/three" --workers "$(wrapper)" -j 3 --shards 3 "$T/in"
	assert_equal "$rc" 1
	assert_equal "$(starts)" 3
	cmp "$T/one" "$T/three"
	# -j 1 is no limit on the parts: each gets one process
	race_into "$T/three" --workers "$(wrapper)" -j 1 --shards 3 "$T/in"
	assert_equal "$(starts)" 3
	cmp "$T/one" "$T/three"
	# the file before the options, or after --: the parts read it all the same
	race_into "$T/three" "$T/in" --workers "$(wrapper)" -j 3 --shards 3
	assert_equal "$(starts)" 3
	cmp "$T/one" "$T/three"
	race_into "$T/three" --shards 3 -j 3 -w "$(wrapper)" -- "$T/in"
	assert_equal "$(starts)" 3
	cmp "$T/one" "$T/three"
}

@test "multi-line grids are never cut: a file of nothing else is raced whole" {
	repeat 100 "$DATA/notation-block.txt" "$DATA/notation-compact.txt" "$DATA/notation-rows.txt" \
		"$DATA/notation-acs.txt" >"$T/in"
	sudoku-cp "$T/in" >"$T/cp"
	assert_equal "$(wc -l <"$T/cp")" 400
	race_into "$T/one" --workers cp --shards 1 "$T/in"
	assert_equal "$rc" 0
	cmp "$T/cp" "$T/one"
	# -j 1: three parts would start three processes, the whole run one
	race_into "$T/three" --workers "$(wrapper)" -j 1 --shards 3 "$T/in"
	assert_equal "$rc" 0
	cmp "$T/cp" "$T/three"
	assert_equal "$(starts)" 1
	assert_equal "$(cat "$T/three.err")" ""
}

@test "multi-line grids around the cuts' places: the cuts go past them, the answers are the same" {
	# one-line puzzles, then 300 block grids over the two places a cut
	# would go, then one-line puzzles: the cuts are the first two
	# one-line puzzles after the grids (a part of one line between them)
	{
		repeat 200 "$DATA/easy9.txt"
		repeat 300 "$DATA/notation-block.txt"
		repeat 200 "$DATA/easy9.txt"
	} >"$T/in"
	race_into "$T/one" --workers cp --shards 1 "$T/in"
	assert_equal "$rc" 0
	assert_equal "$(wc -l <"$T/one")" 1500
	race_into "$T/three" --workers "$(wrapper)" -j 1 --shards 3 "$T/in"
	assert_equal "$rc" 0
	cmp "$T/one" "$T/three"
	assert_equal "$(starts)" 3
	# a one-line puzzle inside a grid cut short, in every notation: the
	# same '#' lines and answers, numbered the same
	good=$(head -n 1 "$DATA/easy9.txt")
	for f in notation-block notation-compact notation-rows notation-acs; do
		{
			head -n 4 "$DATA/$f.txt"
			echo "$good"
			tail -n +5 "$DATA/$f.txt"
		} >"$T/unit"
		repeat 300 "$T/unit" >"$T/broken"
		race_into "$T/one" --workers cp --shards 1 "$T/broken"
		race_into "$T/three" --workers "$(wrapper)" -j 1 --shards 3 "$T/broken"
		assert_equal "$rc" 1
		grep -q '^# invalid: ' "$T/three"
		cmp "$T/one" "$T/three"
		assert_equal "$(starts)" 3
	done
}

@test "a message every part says is said once" {
	repeat 400 "$DATA/easy9.txt" >"$T/in"
	# a cache that is a file: each part warns
	echo "a file" >"$T/c"
	run --separate-stderr sudoku-race --cache "$T/c" --shards 1 "$T/in"
	assert_success
	[[ $stderr == "sudoku-race: cache: $T/c is not a directory; going on without the cache" ]]
	whole=$stderr
	run --separate-stderr sudoku-race --cache "$T/c" --shards 3 -j 3 "$T/in"
	assert_success
	assert_equal "$output" "$(repeat 400 "$DATA/easy9.solutions")"
	assert_equal "$stderr" "$whole"
}

@test "standard input from a regular file is cut into parts; a pipe is raced whole, with a warning" {
	mixed_file "$T/in"
	race_into "$T/one" --shards 1 <"$T/in"
	assert_equal "$rc" 1
	# from standard input the '#' lines name no file
	grep -q '^# invalid: line [0-9]*: 80 cells, expected 81$' "$T/one"
	race_into "$T/three" --workers "$(wrapper)" -j 3 --shards 3 <"$T/in"
	assert_equal "$rc" 1
	cmp "$T/one" "$T/three"
	assert_equal "$(starts)" 3
	assert_equal "$(cat "$T/three.err")" ""
	# '-' is standard input too
	race_into "$T/three" --workers "$(wrapper)" -j 3 --shards 3 - <"$T/in"
	assert_equal "$rc" 1
	cmp "$T/one" "$T/three"
	assert_equal "$(starts)" 3
	# a pipe cannot be cut: the warning, then one whole run
	rc=0
	# shellcheck disable=SC2002 # a pipe, not the file
	cat "$T/in" | race --workers "$(wrapper)" -j 1 --shards 2 >"$T/pipe" 2>"$T/pipe.err" || rc=$?
	assert_equal "$rc" 1
	cmp "$T/one" "$T/pipe"
	assert_equal "$(cat "$T/pipe.err")" "sudoku-race: --shards: the input is not regular files: it is raced whole"
	assert_equal "$(starts)" 1
	# nor can a file with standard input among the inputs
	race_into "$T/two" --shards 2 "$DATA/easy9.txt" - <"$DATA/easy9.txt"
	assert_equal "$rc" 0
	assert_equal "$(cat "$T/two")" "$(cat "$DATA/easy9.solutions" "$DATA/easy9.solutions")"
	assert_equal "$(cat "$T/two.err")" "sudoku-race: --shards: the input is not regular files: it is raced whole"
}

@test "several files: big ones cut, small ones together, the answers and each file's numbers the same" {
	mixed_file "$T/a"
	mixed_file "$T/b"
	race_into "$T/one" --shards 1 "$T/a" "$DATA/easy9.txt" "$T/b" "$DATA/easy9.txt" "$DATA/4x4.txt"
	assert_equal "$rc" 1
	# the '#' lines name their file
	grep -q "^# invalid: $T/b: line [0-9]*: 80 cells, expected 81\$" "$T/one"
	# a part a quarter of the whole: each big file in two, each small run
	# of files after it together; -j 4 shared by bytes is one process a
	# part (more, and a busy part could start a second)
	race_into "$T/parts" --workers "$(wrapper)" -j 4 --shards 4 \
		"$T/a" "$DATA/easy9.txt" "$T/b" "$DATA/easy9.txt" "$DATA/4x4.txt"
	assert_equal "$rc" 1
	cmp "$T/one" "$T/parts"
	assert_equal "$(starts)" 6
	assert_equal "$(cat "$T/parts.err")" ""
	race_into "$T/one.json" --json --workers cp --shards 1 "$T/a" "$DATA/easy9.txt" "$T/b"
	race_into "$T/parts.json" --json --workers cp --shards 4 "$T/a" "$DATA/easy9.txt" "$T/b"
	cmp <(no_timing "$T/one.json") <(no_timing "$T/parts.json")
}

@test "usage errors: --shards N>1 with --stats or --progress, --byte-range's forms" {
	for o in stats progress; do
		run --separate-stderr race --shards 3 --$o "$DATA/easy9.txt"
		assert_failure 2
		assert_output ""
		assert_equal "${stderr_lines[0]}" "sudoku-race: --shards does not go with --$o (each part would show its own)"
	done
	run --separate-stderr race --shards=2 --stats "$DATA/easy9.txt"
	assert_failure 2
	[[ $stderr == *"--shards does not go with --stats (each part would show its own)"* ]]
	# --shards 1 goes with them
	run --separate-stderr race --shards 1 --stats "$DATA/easy9.txt"
	assert_success
	assert_output "$(cat "$DATA/easy9.solutions")"
	[[ $stderr == *"processes started: "* ]]
	for n in 0 65 x; do
		run --separate-stderr race --shards "$n" "$DATA/easy9.txt"
		assert_failure 2
		[[ $stderr == *"--shards: '$n' is not a number from 1 to 64"* ]]
	done
	run --separate-stderr race --byte-range=0-82 "$DATA/easy9.txt" "$DATA/4x4.txt"
	assert_failure 2
	assert_output ""
	assert_equal "${stderr_lines[0]}" "sudoku-race: --byte-range reads one FILE, not 2"
	for r in x 82 -5 1-x; do
		run --separate-stderr race --byte-range="$r" "$DATA/easy9.txt"
		assert_failure 2
		assert_output ""
		assert_equal "${stderr_lines[0]}" "sudoku-race: --byte-range: '$r' is not FROM-TO (bytes)"
	done
	run --separate-stderr bash -c "cat '$DATA/easy9.txt' | sudoku-race --no-cache --byte-range=82-164"
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "sudoku-race: --byte-range: standard input is not a regular file"
}

@test "--byte-range reads only its bytes; --line-offset gives them the whole file's numbers" {
	good=$(head -n 1 "$DATA/easy9.txt")
	# three lines of 82 bytes, the second one bad
	{ echo "$good"; echo "${good:0:80}!"; sed -n 3p "$DATA/easy9.txt"; } >"$T/in"
	assert_equal "$(wc -c <"$T/in")" 246
	run --separate-stderr race --byte-range=82-164 "$T/in"
	assert_failure 1
	assert_output "# invalid: $T/in: line 1: illegal character '!' at row 9, column 9"
	run --separate-stderr race --byte-range=82-164 --line-offset=1 "$T/in"
	assert_failure 1
	assert_output "# invalid: $T/in: line 2: illegal character '!' at row 9, column 9"
	run --separate-stderr race --byte-range=0-82 "$T/in"
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions")"
	# no TO: to the end
	run --separate-stderr race --byte-range=164- "$T/in"
	assert_success
	assert_output "$(sed -n 3p "$DATA/easy9.solutions")"
	run --separate-stderr race --byte-range=0- "$T/in"
	assert_failure 1
	assert_equal "${#lines[@]}" 3
	# the JSON objects' lines, and standard input from the file
	run --separate-stderr race --json --byte-range=164-246 --line-offset=2 <"$T/in"
	assert_success
	[[ $output == '{"line":3,'*'"solution":"'"$(sed -n 3p "$DATA/easy9.solutions")"'"'* ]]
	# nothing in the range: nothing to answer
	run --separate-stderr race --byte-range=246- "$T/in"
	assert_success
	assert_output ""
	run --separate-stderr race --byte-range=82-82 "$T/in"
	assert_success
	assert_output ""
}

# head_of_race OPTION...: sudoku-race --no-cache --shards 3 OPTION... $T/in
# | head -n 1 gives the first answer alone, says nothing, and exits 0.
# Standard error in a file: a racer that would not end must not keep run
# waiting after timeout has ended the pipeline (the teardown finds it).
head_of_race() {
	run timeout -k 5 30 bash -c "sudoku-race --no-cache --shards 3 $* '$T/in' 2>'$T/err' | head -n 1
		echo \"status \${PIPESTATUS[0]}\""
	assert_success
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 "$(head -n 1 "$DATA/easy9.solutions")"
	assert_line --index 1 "status 0"
	assert_equal "$(cat "$T/err")" ""
}

@test "| head -n 1: one line, the right one, status 0, nothing left running" {
	repeat 6700 "$DATA/easy9.txt" >"$T/in" # 20,100 puzzles
	head_of_race
	# slow workers: every part is still at work when head goes
	head_of_race -j 3 --workers "'$(slowpoke 0.05)'"
}

# sharded_busy PID N: the racer PID listens for SIGINT and SIGTERM, and N
# parts of it run, each listening too, with a slowpoke and a hanger each
sharded_busy() {
	local p k=0
	catches "$1" INT TERM || return 1
	for p in $(parts); do
		catches "$p" INT TERM || return 1
		k=$((k + 1))
	done
	[ "$k" -eq "$2" ] && [ "$(count fake-slowpoke)" -ge "$2" ] && [ "$(count fake-hanger)" -ge "$2" ]
}

# sharded_signal_ends SIG STATUS: a racer of three parts, each busy with
# slow workers, gets SIG and exits with STATUS (the teardown checks that
# every part and worker went too)
sharded_signal_ends() {
	# a puzzle a part
	sudoku-race --no-cache --shards 3 -j 3 --workers "$(slowpoke 30)",fake-hanger "$DATA/easy9.txt" \
		>"$T/out" 2>"$T/err" &
	pid=$!
	poll 10 sharded_busy $pid 3
	# the parts, as ps shows them
	for p in $(parts); do part_args "$p"; done | sort >"$T/parts"
	assert_equal "$(cat "$T/parts")" "$(printf '%s\n' \
		'--byte-range=0-82 --line-offset=0 --jobs=1 --shards=1' \
		'--byte-range=164- --line-offset=2 --jobs=1 --shards=1' \
		'--byte-range=82-164 --line-offset=1 --jobs=1 --shards=1')"
	kill -"$1" $pid
	wait_within 20 $pid
	assert_equal "$status" "$2"
	assert_equal "$(cat "$T/out")" ""
	assert_equal "$(cat "$T/err")" ""
}

@test "SIGTERM to a sharded racer stops every part and worker: exit 143" {
	skip_if_wrapped "signals the racer by its pid"
	sharded_signal_ends TERM 143
}

@test "SIGINT to a sharded racer stops every part and worker: exit 130" {
	skip_if_wrapped "signals the racer by its pid"
	sharded_signal_ends INT 130
}

@test "the parts and their workers die with the racer even when it is SIGKILLed" {
	skip_if_wrapped "kills the racer by its pid"
	sudoku-race --no-cache --shards 3 -j 3 --workers "$(slowpoke 30)",fake-hanger "$DATA/easy9.txt" \
		>"$T/out" 2>"$T/err" &
	pid=$!
	poll 10 sharded_busy $pid 3
	kill -KILL $pid
	wait $pid || status=$?
	assert_equal "$status" 137
	# the teardown: no part, slowpoke or hanger left running (each part
	# is killed with the racer; one that were not would still see its
	# answers' reader gone, and end)
}

# wrote PID BYTES: process PID has written at least BYTES
wrote() {
	local bytes
	bytes=$(sed -n 's/^wchar: //p' "/proc/$1/io" 2>/dev/null) || return 1
	[ "${bytes:-0}" -ge "$2" ]
}

@test "SIGTERM is passed on to the parts while standard output is full" {
	skip_if_wrapped "signals the racer by its pid"
	# the first part's 600 boxed answers (200 kB) go to a reader that does
	# not read yet; the second part's 600 puzzles take 30 s each
	p1=$(sed -n 1p "$DATA/easy9.txt") p2=$(sed -n 2p "$DATA/easy9.txt")
	printf '%s %s 0\n%s %s 30\n' "$p1" "$(sed -n 1p "$DATA/easy9.solutions")" \
		"$p2" "$(sed -n 2p "$DATA/easy9.solutions")" >"$T/answers"
	{
		for _ in $(seq 1 600); do echo "$p1"; done
		for _ in $(seq 1 600); do echo "$p2"; done
	} >"$T/in"
	mkfifo "$T/fifo"
	{
		poll 30 test -e "$T/go"
		cat >"$T/out"
	} <"$T/fifo" &
	reader=$!
	sudoku-race --no-cache --pretty --shards 2 -j 2 --workers "fake-slowpoke:answers=$T/answers" "$T/in" \
		>"$T/fifo" 2>"$T/err" &
	pid=$!
	# both parts at work, and the racer's output nearly a pipe's worth (64 kB) ahead
	poll 10 at_work 2
	poll 10 wrote $pid 60000
	second=$(part_at 49200)
	kill -TERM $pid
	# the second part hears it and ends, while the reader still waits
	poll 5 gone "$second"
	touch "$T/go"
	wait_within 20 $pid
	assert_equal "$status" 143
	wait $reader
	# what the first part had answered, whole boxes, then none of the
	# second's: it was stopped before its first answer
	race --pretty <(echo "$p1") >"$T/box"
	n=$(($(wc -l <"$T/out") / $(wc -l <"$T/box")))
	[ "$n" -ge 150 ]
	for _ in $(seq 1 "$n"); do cat "$T/box"; done | cmp - "$T/out"
}

# at_work N: N parts run, and N slowpokes (a part's each) have said hello
at_work() {
	[ "$(parts | wc -l)" -eq "$1" ] && [ "$(hellos fake-slowpoke)" -eq "$1" ]
}

# part_lost SIG: a racer of three parts of 30 lines (2460 bytes), the
# first done in 6 s, the others slow (0.5 s a puzzle); once each is at work
# the second gets SIG from outside the run. The third must be stopped at
# once (not when the first is done), the racer exit 2, its output stop at
# the second's last answer (never skip a puzzle). Its message in $T/err.
part_lost() {
	p1=$(sed -n 1p "$DATA/easy9.txt") p2=$(sed -n 2p "$DATA/easy9.txt") p3=$(sed -n 3p "$DATA/easy9.txt")
	s1=$(sed -n 1p "$DATA/easy9.solutions") s2=$(sed -n 2p "$DATA/easy9.solutions")
	s3=$(sed -n 3p "$DATA/easy9.solutions")
	printf '%s %s 0.2\n%s %s 0.5\n%s %s 0.5\n' "$p1" "$s1" "$p2" "$s2" "$p3" "$s3" >"$T/answers"
	{
		for _ in $(seq 1 30); do echo "$p1"; done
		for _ in $(seq 1 30); do echo "$p2"; echo "$p3"; done
	} >"$T/in"
	{
		for _ in $(seq 1 30); do echo "$s1"; done
		for _ in $(seq 1 30); do echo "$s2"; echo "$s3"; done
	} >"$T/expected"
	sudoku-race --no-cache --shards 3 -j 3 --workers "fake-slowpoke:answers=$T/answers" "$T/in" \
		>"$T/out" 2>"$T/err" &
	pid=$!
	poll 10 at_work 3
	first=$(part_at 0) second=$(part_at 2460) third=$(part_at 4920)
	[[ $(part_args "$second") == "--byte-range=2460-4920 --line-offset=30 "* ]]
	kill -"$1" "$second"
	poll 4 gone "$third"
	if gone "$first"; then
		echo "the first part ended before the third was stopped" >&2
		return 1
	fi
	wait_within 20 $pid
	assert_equal "$status" 2
	# the first part's answers all, then what the second had answered,
	# whole lines, and nothing of the third's
	n=$(wc -l <"$T/out")
	[ "$n" -ge 30 ]
	[ "$n" -lt 60 ]
	cmp "$T/out" <(head -n "$n" "$T/expected")
}

@test "a part killed: exit 2, said, the later parts stopped at once, the output stops at its last answer" {
	skip_if_wrapped "kills a part by its pid"
	part_lost KILL
	assert_equal "$(cat "$T/err")" \
		"sudoku-race: part 2 of 3 (from $T/in: line 31) ended by signal 9: the answers stop at its last one, the parts after it are stopped"
}

@test "a part stopped by a SIGTERM the run did not send: the same, no hole in the output" {
	skip_if_wrapped "signals a part by its pid"
	part_lost TERM
	assert_equal "$(cat "$T/err")" \
		"sudoku-race: part 2 of 3 (from $T/in: line 31) ended with status 143: the answers stop at its last one, the parts after it are stopped"
}
