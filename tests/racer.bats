#!/usr/bin/env bats
# sudoku-race: batch mode, notation, options, and the race against fake
# workers that misbehave (tests/fakes). Every test checks that no racer,
# worker or fake is left running. The cache has its own suite (cache.bats);
# here it lives in the test's own directory.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/xdg"
	T=$BATS_TEST_TMPDIR
	slowpoke_answers
}


# json_check FILE: every line of FILE is a JSON object (jq, python3 or perl)
json_check() {
	if command -v jq >/dev/null; then
		jq -e 'type == "object"' "$1" >/dev/null
	elif command -v python3 >/dev/null; then
		python3 -c 'import json,sys
for l in open(sys.argv[1]): assert isinstance(json.loads(l), dict)' "$1"
	else
		perl -MJSON::PP -ne 'ref(decode_json($_)) eq "HASH" or die' "$1"
	fi
}

# json_field FILE N EXPR: a value from line N of FILE, EXPR as in jq
json_field() {
	sed -n "${2}p" "$1" >"$T/one.json"
	if command -v jq >/dev/null; then
		jq -r "$3" "$T/one.json"
	else
		perl -MJSON::PP -e '
			my $o = decode_json(do { local $/; <STDIN> });
			my $v = $o; for my $k (grep { length } split /\./, $ARGV[0]) {
				$v = $k =~ /^\[(\d+)\]$/ ? $v->[$1] : $v->{$k} }
			print(defined $v ? (ref $v eq "JSON::PP::Boolean" ? ($v ? "true" : "false") : $v) : "null"), "\n"' \
			"$(echo "$3" | sed 's/\[\([0-9]*\)\]/.[\1]/g')" <"$T/one.json"
	fi
}

@test "--help describes the program and exits 0" {
	run sudoku-race --help
	assert_success
	assert_output --partial "Usage: sudoku-race"
	assert_output --partial "--workers"
	assert_output --partial "--no-cache"
	assert_output --partial "Exit status"
}

@test "--version prints the name and version" {
	run sudoku-race --version
	assert_success
	assert_output --regexp '^sudoku-race \(sudoku-race\) [0-9]+\.[0-9]+'
}

@test "an unknown option is a usage error: exit 2" {
	run --separate-stderr sudoku-race --frobnicate
	assert_failure 2
	assert_equal "$output" ""
	[[ $stderr == *frobnicate* ]]
}

@test "a worker that does not exist is a usage error: exit 2, named" {
	run --separate-stderr race --workers cp,nosuchworker "$DATA/easy9.txt"
	assert_failure 2
	[[ $stderr == *nosuchworker* ]]
}

@test "solves puzzles through the default portfolio: one line each, in order, exit 0" {
	run race "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
}

@test "reads standard input, '-', and several files in order" {
	run bash -c "sudoku-race --no-cache < '$DATA/easy9.txt'"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	run bash -c "head -n 1 '$DATA/easy9.txt' | sudoku-race --no-cache '$DATA/easy9.txt' - '$DATA/4x4.txt'"
	assert_success
	assert_equal "${#lines[@]}" 5
	assert_equal "${lines[3]}" "$(head -n 1 "$DATA/easy9.solutions")"
	assert_equal "${lines[4]}" "1324423124133142"
}

@test "answers in each puzzle's own notation, as the workers' filter mode does" {
	for f in notation-dots notation-zeros notation-block notation-compact notation-numbers \
		notation-rows notation-acs 4x4 16x16 16x16-hex 25x25 36x36; do
		# only cp, so that a puzzle with several solutions (16x16, 36x36)
		# gets the same one as sudoku-cp's
		run race --workers cp "$DATA/$f.txt"
		assert_success
		assert_equal "$output" "$(sudoku-cp "$DATA/$f.txt")"
	done
}

@test "bad input lines get '#' lines naming the line; the others are solved; exit 1" {
	good=$(head -n 1 "$DATA/easy9.txt")
	{
		echo "$good"
		echo "${good:0:80}"
		echo "${good:0:80}!"
		echo "44${good:2}"
		echo "$good"
	} >"$T/in"
	run race "$T/in"
	assert_failure 1
	assert_equal "${#lines[@]}" 5
	assert_equal "${lines[0]}" "$(head -n 1 "$DATA/easy9.solutions")"
	assert_equal "${lines[1]}" "# invalid: $T/in: line 2: 80 cells, expected 81"
	assert_equal "${lines[2]}" "# invalid: $T/in: line 3: illegal character '!' at row 9, column 9"
	assert_equal "${lines[3]}" "# unsat: $T/in: line 4: value 4 twice in row 1 (row 1 column 1, row 1 column 2)"
	assert_equal "${lines[4]}" "$(head -n 1 "$DATA/easy9.solutions")"
	# from standard input, without the file's name
	run bash -c "sudoku-race --no-cache < '$T/in'"
	assert_equal "${lines[1]}" "# invalid: line 2: 80 cells, expected 81"
}

@test "a 1 MB line is refused, and the next puzzle is solved" {
	{
		head -c 1048576 /dev/zero | tr '\0' '.'
		echo
		head -n 1 "$DATA/easy9.txt"
	} >"$T/in"
	run race "$T/in"
	assert_failure 1
	assert_equal "${lines[0]}" "# invalid: $T/in: line 1: longer than 65536 bytes"
	assert_equal "${lines[1]}" "$(head -n 1 "$DATA/easy9.solutions")"
}

@test "binary garbage gives '#' lines, never a crash" {
	head -c 8192 /dev/urandom >"$T/in"
	run race "$T/in"
	[ "$status" -le 1 ]
	for l in "${lines[@]}"; do [[ $l == "#"* ]]; done
}

@test "a missing file: exit 2, named on stderr; the other files are still answered" {
	run --separate-stderr race /nonexistent/puzzles.txt "$DATA/easy9.txt"
	assert_failure 2
	[[ $stderr == *"/nonexistent/puzzles.txt"* ]]
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
}

@test "--pretty prints boxed grids that read back as the solutions" {
	run race --pretty "$DATA/easy9.txt"
	assert_success
	assert_line --index 0 "+-------+-------+-------+"
	echo "$output" >"$T/pretty"
	run sudoku-race --no-cache "$T/pretty"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
}

@test "--json: one object per puzzle that parses, with the verdict, winner and each worker's outcome" {
	cat "$DATA/easy9.txt" >"$T/in"
	echo "1234" >>"$T/in"
	race --json --workers cp,"$(slowpoke 1)" "$T/in" >"$T/out" || true
	run json_check "$T/out"
	assert_success
	assert_equal "$(wc -l <"$T/out")" 4
	assert_equal "$(json_field "$T/out" 1 .status)" solved
	assert_equal "$(json_field "$T/out" 1 .solution)" "$(head -n 1 "$DATA/easy9.solutions")"
	assert_equal "$(json_field "$T/out" 1 .winner)" cp
	assert_equal "$(json_field "$T/out" 1 .cache)" false
	assert_equal "$(json_field "$T/out" 1 '.workers[0].worker')" cp
	assert_equal "$(json_field "$T/out" 1 '.workers[0].outcome')" won
	assert_equal "$(json_field "$T/out" 4 .status)" invalid
	[[ $(json_field "$T/out" 4 .reason) == *"line 4"* ]]
}

@test "--count: a unique puzzle is solved, several solutions and unsat are said so" {
	sed -n 3p "$top_srcdir/puzzles/examples.txt" >"$T/in"  # several solutions
	head -n 1 "$DATA/easy9.txt" >>"$T/in"
	echo "12345678.........9$(printf '%.0s.' $(seq 63))" >>"$T/in" # no solution, no clash
	run race --count "$T/in"
	assert_failure 1
	assert_equal "${lines[0]}" "# multiple solutions: at least 2"
	assert_equal "${lines[1]}" "$(head -n 1 "$DATA/easy9.solutions")"
	assert_equal "${lines[2]}" "# unsat"
	# without --count the first is solved with one of its solutions
	race "$T/in" >"$T/out" || true
	run verify "$T/in" "$T/out"
	assert_line "2 ok, 1 none, 0 wrong"
}

@test "--count=K counts up to K, as the workers do, and says so in --json" {
	sed -n 3p "$top_srcdir/puzzles/examples.txt" >"$T/in" # 9 solutions
	head -n 1 "$DATA/easy9.txt" >>"$T/in"
	sudoku-cp --count=5 "$T/in" >"$T/cp5" || true
	sudoku-cp --count=100 "$T/in" >"$T/cp100" || true
	run race --count=5 --workers cp,dlx "$T/in"
	assert_failure 1
	assert_equal "$output" "$(cat "$T/cp5")"
	assert_equal "${lines[0]}" "# multiple solutions: at least 5"
	run race -c100 --workers cp,dlx "$T/in"
	assert_equal "$output" "$(cat "$T/cp100")"
	assert_equal "${lines[0]}" "# multiple solutions: 9"
	race --count=100 --json "$T/in" >"$T/out" || true
	assert_equal "$(json_field "$T/out" 1 .status)" multiple
	assert_equal "$(json_field "$T/out" 1 .count)" 9
	assert_equal "$(json_field "$T/out" 1 .count_limit)" 100
	assert_equal "$(json_field "$T/out" 1 .reason)" "multiple solutions: 9"
	assert_equal "$(json_field "$T/out" 2 .count)" 1
	assert_equal "$(json_field "$T/out" 2 .unique)" true
	# a cache that knows "at least 2" answers --count, not --count=3
	sudoku-race --count "$T/in" >/dev/null || true
	run sudoku-race --count "$T/in"
	assert_equal "${lines[0]}" "# multiple solutions: at least 2"
	run sudoku-race --count=3 "$T/in"
	assert_equal "${lines[0]}" "# multiple solutions: at least 3"
	for bad in 1 0 x -3 2.5; do
		run --separate-stderr sudoku-race --count="$bad" "$T/in"
		assert_failure 2
		[[ $stderr == *"--count: '$bad' is not a number from 2 to "* ]]
	done
}

@test "--list-workers: kind, sizes, status; a mute worker is unavailable" {
	run race --list-workers
	assert_success
	assert_line --regexp '^cp +complete +4x4-64x64 +cpu +available'
	# 2 s: the mute's wait, and the liar's time to say hello (bash's start;
	# 0.5 s missed it when each fake started 0.6 s late, as on a loaded
	# machine)
	run race --list-workers --hello-timeout 2 --workers cp,fake-mute,fake-liar
	assert_success
	assert_line --regexp '^fake-mute .*unavailable: no hello in time'
	assert_line --regexp '^ +\(--hello-timeout\)$'
	assert_line --regexp '^fake-liar +complete +9x9-9x9 +cpu +available'
}

@test "a liar never wins: a slower correct worker does" {
	# the liar as presolver: it is waited for, and answers every puzzle
	# first (raced all at once, a liar 0.6 s late to say hello, as on a
	# loaded machine, missed the first)
	run --separate-stderr race --stats --json --presolver fake-liar --workers fake-liar,"$(slowpoke 0.5)" \
		"$DATA/easy9.txt"
	assert_success
	echo "$output" >"$T/out"
	for i in 1 2 3; do
		assert_equal "$(json_field "$T/out" $i .solution)" "$(sed -n ${i}p "$DATA/easy9.solutions")"
		assert_equal "$(json_field "$T/out" $i .winner)" "$(slowpoke 0.5)"
		assert_equal "$(json_field "$T/out" $i '.workers[0].outcome')" "wrong answer"
	done
	# one warning, and the count in --stats
	assert_equal "$(grep -c 'fake-liar sent a wrong answer' <<<"$stderr")" 1
	assert_equal "$(stat_of fake-liar wrong <<<"$stderr")" 3
	assert_equal "$(stat_of fake-liar won <<<"$stderr")" 0
}

@test "a worker's error is named once, with its line and its text, and counted" {
	run --separate-stderr race --stats --workers fake-erring "$DATA/easy9.txt"
	assert_failure 1
	assert_equal "$output" "$(printf '# unsolved\n# unsolved\n# unsolved')"
	assert_equal "$(grep -c 'worker fake-erring answered .*easy9.txt: line 1 with an error: cannot open /dev/fpga0: no such device (café ??1m)$' <<<"$stderr")" 1
	assert_equal "$(grep -c 'with an error' <<<"$stderr")" 1
	assert_equal "$(stat_of fake-erring error <<<"$stderr")" 3
	# beside a worker that solves them: solved, and the error still named
	run --separate-stderr race --presolver fake-erring --workers fake-erring,cp "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(grep -c 'worker fake-erring answered .*line [0-9] with an error' <<<"$stderr")" 1
}

@test "a liar alone: every puzzle unsolved, exit 1" {
	run --separate-stderr race --workers fake-liar "$DATA/easy9.txt"
	assert_failure 1
	assert_equal "$output" "$(printf '# unsolved\n# unsolved\n# unsolved')"
}

@test "a crasher costs only itself; one that keeps dying is left out, with one warning" {
	for i in $(seq 1 40); do cat "$DATA/easy9.txt"; done >"$T/in"
	run --separate-stderr race --stats --workers fake-crasher,"$(slowpoke 0.03)" "$T/in"
	assert_success
	printf '%s\n' "${lines[@]}" >"$T/out"
	run verify "$T/in" "$T/out"
	assert_line "120 ok, 0 none, 0 wrong"
	assert_equal "$(grep -c 'worker fake-crasher: died or hung 4 times in a row; left out' <<<"$stderr")" 1
}

@test "a hanger is killed within the grace, and the race goes on" {
	# The first puzzle starts the workers; the five others wait for the
	# hanger's hello (10 s at most), so that it races them and is killed
	# at the first one's grace, with four still to come. (Three puzzles at
	# once: a hanger that said hello 0.25 s after the slowpoke, as on a
	# loaded machine, had nothing in flight early enough to be killed.)
	for i in 1 2; do cat "$DATA/easy9.txt"; done >"$T/in"
	for i in 1 2; do cat "$DATA/easy9.solutions"; done >"$T/expected"
	SECONDS=0
	run_files race --stats --grace 0.1 --workers fake-hanger,"$(slowpoke 0.1)" \
		< <(feed_after "$T/in" said_hello fake-hanger)
	assert_success
	assert_equal "$output" "$(cat "$T/expected")"
	[ "$(stat_of fake-hanger killed <<<"$stderr")" -ge 1 ]
	# it would hang for ever: it was killed, not waited for
	[ $SECONDS -lt 10 ]
}

@test "an endless line: the worker is restarted, the race goes on" {
	run --separate-stderr race --workers fake-flooder,"$(slowpoke 0.4)" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	[[ $stderr == *"fake-flooder broke the protocol (a line longer than 65536 bytes)"* ]]
}

@test "a progress storm: the answers are right and the progress lines throttled" {
	run --separate-stderr race --progress --verbose --workers fake-flooder:mode=progress,"$(slowpoke 0.5)" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	n=$(grep -c 'fake-flooder:mode=progress: nodes=1 cost=7' <<<"$stderr" || true)
	[ "$n" -ge 1 ]
	[ "$n" -le 10 ]
}

@test "a worker slow to say hello (a GPU worker starting CUDA) is waited for" {
	run --separate-stderr race --workers "$(slowpoke 0.05):hello-delay=2.5" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	run race --hello-timeout 0.5 --workers "$(slowpoke 0.05):hello-delay=2.5" "$DATA/easy9.txt"
	assert_failure 1
	assert_line --partial "no available worker"
	# beside a quick one, it may miss the whole run: --stats says it was starting
	run --separate-stderr race --stats --schedule=all --workers cp,"$(slowpoke 0.05):hello-delay=2.5" \
		"$DATA/easy9.txt"
	assert_success
	assert_equal "$(stat_of cp status <<<"$stderr")" ok
	[[ $stderr == *" starting (no hello before the end)"* ]]
	# with nothing to race, nothing starts
	run --separate-stderr race --stats --workers cp </dev/null
	assert_success
	assert_equal "$(stat_of cp sent <<<"$stderr")" 0
	[[ $(grep '^cp ' <<<"$stderr") == *" not started (not needed)" ]]
}

@test "a mute worker is not waited for" {
	run race --workers fake-mute,"$(slowpoke 0.05)" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
}

@test "order is kept with fast and slow puzzles finishing out of order" {
	# six puzzles, the slowpoke's time on each set so that later ones finish first
	grep -v '^#' "$top_srcdir/puzzles/acs-logic-solvable.txt" | head -n 6 >"$T/in"
	sudoku-cp "$T/in" >"$T/expected"
	printf '0.8\n0\n0.5\n0\n0.3\n0.1\n' >"$T/delays"
	paste -d' ' "$T/in" "$T/expected" "$T/delays" >"$T/answers"
	run race -j 3 --workers "fake-slowpoke:answers=$T/answers" "$T/in"
	assert_success
	assert_equal "$output" "$(cat "$T/expected")"
}

@test "--timeout: '# timeout after N s', exit 1; --time-limit is the same" {
	run race --timeout 0.3 --workers "$(slowpoke 30)" "$DATA/easy9.txt"
	assert_failure 1
	assert_equal "${lines[0]}" "# timeout after 0.3 s"
	assert_equal "${#lines[@]}" 3
	run race --time-limit=300ms --workers "$(slowpoke 30)" "$DATA/easy9.txt"
	assert_failure 1
	assert_equal "${lines[0]}" "# timeout after 0.3 s"
	assert_equal "${#lines[@]}" 3
	run --separate-stderr race --time-limit=soon "$DATA/easy9.txt"
	assert_failure 2
	[[ $stderr == *"--timeout: 'soon' is not a number of seconds"* ]]
}

@test "-j 2: two presolver processes, answers in input order" {
	# enough work to pay for a second process's start: the second starts
	# once the first was busy for twice its start, and on a loaded machine
	# a start takes tens of ms. All 49,158 puzzles of the file (200 ms of
	# work here): its first 10,000 (40 ms) had one process in 3 runs of 40
	# beside two busy loops, and once in 5 runs of make check.
	# (answers and verdicts in files: run's array of their lines took 10 s)
	xz -dc "$top_srcdir/puzzles/9x9/puzzles2_17_clue.xz" | grep -v '^#' >"$T/in"
	run_files race -j 2 --stats "$T/in"
	assert_success
	[[ $stderr == *"processes started: cp x2"* ]]
	verify "$T/in" "$T/out" >"$T/verified" || true
	grep -qx "$(wc -l <"$T/in") ok, 0 none, 0 wrong" "$T/verified"
}

@test "-j 8: a small easy file costs one process's start, not eight" {
	for i in $(seq 1 20); do cat "$DATA/easy9.txt"; done >"$T/in"
	run --separate-stderr race -j 8 --stats "$T/in"
	assert_success
	printf '%s\n' "${lines[@]}" >"$T/out"
	run verify "$T/in" "$T/out"
	assert_line "60 ok, 0 none, 0 wrong"
	# more processes start only once those started were busy for twice
	# their start: 60 easy puzzles take a fraction of one start
	[[ $stderr == *"processes started: cp x1"* ]]
}

@test "a size no worker takes: '# unsupported'" {
	run race --workers fake-liar "$DATA/4x4.txt"
	assert_failure 1
	assert_output "# unsupported: $DATA/4x4.txt: line 1: no available worker takes 4x4 grids"
}

@test "a worker entry with options; one with a bad option is a usage error" {
	run --separate-stderr race --stats --json --workers cp:seed=2 "$DATA/easy9.txt"
	assert_success
	assert_equal "$(stat_of cp:seed=2 status <<<"$stderr")" ok
	[[ ${lines[0]} == *'"winner":"cp:seed=2"'* ]]
	# an entry twice: two workers, told apart
	run --separate-stderr race --stats --workers cp,cp "$DATA/easy9.txt"
	assert_success
	[ -n "$(stat_of cp sent <<<"$stderr")" ]
	[ -n "$(stat_of 'cp#2' sent <<<"$stderr")" ]
	# sudoku-cp --frobnicate=1 is a usage error: found before the first
	# puzzle (the worker is tried once, with no input), said once, exit 2
	run --separate-stderr race --stats --workers cp:frobnicate=1,"$(slowpoke 0.8)" "$DATA/easy9.txt"
	assert_failure 2
	assert_output ""
	assert_equal "$(grep -c 'unrecognized option' <<<"$stderr")" 1
	assert_equal "$(grep -c "'cp:frobnicate=1': the worker refused its options" <<<"$stderr")" 1
}

# busy PID: the racer PID listens for SIGINT and SIGTERM, and both its
# workers (a slowpoke and a hanger) are running
busy() {
	catches "$1" INT TERM && running fake-slowpoke fake-hanger
}

# signal_ends SIG STATUS: the racer, busy with slow workers, gets SIG and
# exits with STATUS (the teardown checks that every worker went too)
signal_ends() {
	sudoku-race --no-cache --workers "$(slowpoke 30)",fake-hanger "$DATA/easy9.txt" >"$T/out" &
	pid=$!
	# not a fixed sleep: a SIGINT before the racer listens for it is lost
	# (a background job of a shell without job control starts with SIGINT
	# ignored), and a SIGTERM ends it unheard, before any worker started
	poll 10 busy $pid
	kill -"$1" $pid
	wait $pid || status=$?
	assert_equal "$status" "$2"
}

@test "SIGINT stops every worker: exit 130" {
	skip_if_wrapped "signals the racer by its pid"
	signal_ends INT 130
}

@test "SIGTERM stops every worker: exit 143" {
	skip_if_wrapped "signals the racer by its pid"
	signal_ends TERM 143
}

# answering PID: the racer PID listens for SIGTERM and has read 1 MB
answering() {
	local bytes
	catches "$1" TERM || return 1
	bytes=$(sed -n 's/^rchar: //p' "/proc/$1/io" 2>/dev/null) || return 1
	[ "${bytes:-0}" -ge 1048576 ]
}

@test "SIGTERM is heard while a large file is answered from the cache" {
	skip_if_wrapped "signals the racer by its pid"
	head -n 1 "$DATA/easy9.txt" >"$T/one"
	sudoku-race --cache "$T/c" "$T/one" >/dev/null
	# ten million hits: seconds of work however fast the racer gets
	yes "$(head -n 1 "$DATA/easy9.txt")" | head -n 10000000 | sudoku-race --cache "$T/c" >/dev/null &
	pid=$!
	# not a fixed sleep: the racer answering (a megabyte of its input read),
	# and listening for SIGTERM (before, the default action would end it)
	poll 10 answering $pid
	kill -TERM $pid
	wait $pid || status=$?
	assert_equal "$status" 143
}

@test "the workers die with the racer even when it is SIGKILLed" {
	skip_if_wrapped "kills the racer by its pid"
	sudoku-race --no-cache -j 2 --workers "$(slowpoke 30)",fake-hanger "$DATA/easy9.txt" >"$T/out" &
	pid=$!
	for _ in $(seq 1 50); do
		[ -n "$(leftovers | grep fake-hanger)" ] && break
		sleep 0.1
	done
	[ -n "$(leftovers | grep fake-hanger)" ]
	kill -KILL $pid
	wait $pid || status=$?
	assert_equal "$status" 137
}

@test "| head -1 ends cleanly with status 0, leaving nothing behind" {
	for i in $(seq 1 3000); do cat "$DATA/easy9.txt"; done >"$T/in"
	run bash -c "sudoku-race --no-cache '$T/in' | head -n 1; echo \"status \${PIPESTATUS[0]}\""
	assert_success
	assert_line --index 0 "$(head -n 1 "$DATA/easy9.solutions")"
	assert_line --index 1 "status 0"
	run bash -c "cat '$T/in' | sudoku-race --no-cache | head -n 1; echo \"status \${PIPESTATUS[1]}\""
	assert_line --index 1 "status 0"
}

@test "a slow producer: each answer comes before the next puzzle is written" {
	# expect_line, not a bare read -t: a read that times out ends the test
	# under set -e, and what it had read of a line would be lost
	start_session sudoku-race --no-cache
	# before the end: bash unsets W_PID as soon as the coprocess is reaped
	pid=$W_PID
	while IFS= read -r p && IFS= read -r s <&5; do
		send "$p"
		expect_line '^' 10 # the next line, whatever it says
		assert_equal "$line" "$s"
	done <"$DATA/easy9.txt" 5<"$DATA/easy9.solutions"
	exec {W_IN}>&-
	rc=0
	wait "$pid" || rc=$?
	W_PID=
	assert_equal "$rc" 0
}

@test "installed layout: the racer finds the workers beside itself" {
	skip_if_wrapped "copies the racer program"
	mkdir -p "$T/prefix/bin"
	cp "$(command -v sudoku-race)" "$(command -v sudoku-cp)" "$T/prefix/bin/"
	run env PATH=/usr/bin:/bin "$T/prefix/bin/sudoku-race" --no-cache "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	run env PATH=/usr/bin:/bin "$T/prefix/bin/sudoku-race" --list-workers
	assert_line --regexp "^cp +complete .*available: "
	assert_line --regexp "^ +$T/prefix/bin/sudoku-cp\$"
	# without sudoku-cp, the name cp does not fall back on /bin/cp: on a
	# PATH of the test's own, with a cp and no sudoku-cp (/usr/bin has one
	# where the package is installed, as it was here for a while beside a
	# run of make check)
	mkdir -p "$T/alone" "$T/path"
	cp "$(command -v sudoku-race)" "$T/alone/"
	ln -s "$(PATH=/usr/bin:/bin command -v cp)" "$T/path/cp"
	run --separate-stderr env PATH="$T/path" "$T/alone/sudoku-race" --no-cache --workers cp "$DATA/easy9.txt"
	assert_failure 2
	[[ $stderr == *"no worker program 'cp'"* ]]
}

@test "--line-offset N numbers the input's lines from N+1: a block of a larger input" {
	printf '%s\n12345\n' "$(head -n 1 "$DATA/easy9.txt")" >"$T/in"
	run race --json --line-offset 1000 <"$T/in"
	assert_failure 1
	[[ ${lines[0]} == '{"line":1001,'* ]]
	[[ ${lines[1]} == '{"line":1002,"status":"invalid",'*'"reason":"line 1002: 5 cells, expected 16"'* ]]
	run race --line-offset -1 "$T/in"
	assert_failure 2
	assert_output --partial "--line-offset: '-1' is not a number of lines"
}

@test "an answer that comes in two writes is read whole" {
	run --separate-stderr race --stats --workers "fake-slowpoke:answers=$T/answers:delay=0:split" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(stat_of fake-slowpoke:answers=$T/answers:delay=0:split malformed <<<"$stderr")" 0
}

@test "--json is valid UTF-8: a Latin-1 file name's byte is U+FFFD, a control character escaped" {
	command -v python3 >/dev/null || skip "python3 is needed"
	f="$T/caf$(printf '\351')"$'\001'"-$(printf '\303\251').txt"
	{ head -n 1 "$DATA/easy9.txt"; echo 12345; } >"$f"
	race --json --workers cp "$f" >"$T/out" || true
	run utf8_json_lines "$T/out"
	assert_success
	assert_line --index 0 "'$T/caf\\ufffd\\x01-\\xe9.txt' None"
	assert_line --index 1 "'$T/caf\\ufffd\\x01-\\xe9.txt' 'line 2: 5 cells, expected 16'"
	# the text lines name the file as it is, bytes and all
	run race --workers cp "$f"
	assert_line --index 1 "# invalid: $f: line 2: 5 cells, expected 16"
}

@test "a worker that speaks another version of the protocol is left out, and says which" {
	cd "$T"
	printf '#!/bin/sh\necho "hello later 1 proto=2 kind=complete sizes=2-8 device=cpu"\ncat >/dev/null\n' >sudoku-later
	chmod +x sudoku-later
	run --separate-stderr sudoku-race --workers "$T/sudoku-later",cp --list-workers --json
	assert_success
	assert_output --partial '"available":false,"version":null,"why":"speaks protocol 2, not 1"'
}

# Bulk frames (PROTOCOL.md 13) against tests/fakes/fake-bulk.c: a worker that
# says bulk=1 and answers each frame at once, breaking a rule as its option
# says; sudoku-cp, which takes frames too, is the honest one.

@test "bulk: solves go in frames to a worker that takes them; as lines with --no-bulk" {
	for i in $(seq 1 30); do cat "$DATA/easy9.txt"; done >"$T/in"
	run --separate-stderr race --presolver fake-bulk:log="$T/log" --workers fake-bulk:log="$T/log",cp "$T/in"
	assert_success
	printf '%s\n' "${lines[@]}" >"$T/out"
	run verify "$T/in" "$T/out"
	assert_line "90 ok, 0 none, 0 wrong"
	# every puzzle went to the presolver in frames, none as a line
	assert_equal "$(awk '$1 == "frame" { n += $2 } END { print n }' "$T/log")" 90
	assert_equal "$(grep -c '^line' "$T/log")" 0
	rm "$T/log"
	run --separate-stderr race --no-bulk --presolver fake-bulk:log="$T/log" --workers fake-bulk:log="$T/log",cp "$T/in"
	assert_success
	assert_equal "$(grep -c '^line$' "$T/log")" 90
	assert_equal "$(grep -c '^frame' "$T/log")" 0
	# the run's fields ride in the frame's head: a time limit, the racer's
	# seed, but not to an entry that has its own
	rm "$T/log"
	run --separate-stderr race --timeout=10 --seed=7 --presolver fake-bulk:log="$T/log" \
		--workers fake-bulk:log="$T/log",cp "$T/in"
	assert_success
	assert_equal "$(awk '$1 == "frame" && $3 == "limit_ms=10000" && $4 == "seed=7" { n += $2 } END { print n }' "$T/log")" 90
	rm "$T/log"
	run --separate-stderr race --seed=7 --presolver fake-bulk:seed=1:log="$T/log" \
		--workers fake-bulk:seed=1:log="$T/log",cp "$T/in"
	assert_success
	assert_equal "$(awk '$1 == "frame" && NF == 2 { n += $2 } END { print n }' "$T/log")" 90
}

@test "bulk: a wrong answer in a frame, or cells over the side, lose only their race" {
	for mode in lie badcells; do
		run --separate-stderr race --stats --presolver fake-bulk:$mode --workers fake-bulk:$mode,cp "$DATA/easy9.txt"
		assert_success
		printf '%s\n' "${lines[@]}" >"$T/out"
		run verify "$DATA/easy9.txt" "$T/out"
		assert_line "3 ok, 0 none, 0 wrong"
		assert_equal "$(grep -c "fake-bulk:$mode sent a wrong answer" <<<"$stderr")" 1
		assert_equal "$(stat_of fake-bulk:$mode wrong <<<"$stderr")" 3
	done
	[[ $stderr == *"a frame's cells of side 9, or over it"* ]]
	# a head padded with spaces is read (its answers are the liar's)...
	run --separate-stderr race --stats --presolver fake-bulk:padded --workers fake-bulk:padded,cp "$DATA/easy9.txt"
	assert_success
	assert_equal "$(stat_of fake-bulk:padded wrong <<<"$stderr")" 3
	[[ $stderr != *"worker fake-bulk:padded broke the protocol"* ]]
	# ...up to the longest head
	run --separate-stderr race --presolver fake-bulk:longhead --workers fake-bulk:longhead,cp "$DATA/easy9.txt"
	assert_success
	[[ $stderr == *"broke the protocol (a frame's head of 324 bytes, over 256)"* ]]
}

@test "bulk: a frame that breaks the protocol costs its worker, never a puzzle" {
	for i in $(seq 1 10); do cat "$DATA/easy9.txt"; done >"$T/in"
	# an id not in flight, more records than in flight, a frame to a racer
	# that sent none, a record cut short and silence after it
	for mode in stray overcount unannounced cut; do
		run --separate-stderr race --presolver fake-bulk:$mode --workers fake-bulk:$mode,cp "$T/in"
		assert_success
		printf '%s\n' "${lines[@]}" >"$T/out"
		run verify "$T/in" "$T/out"
		assert_line "30 ok, 0 none, 0 wrong"
		if [ $mode != cut ]; then
			[[ $stderr == *"worker fake-bulk:$mode broke the protocol"* ]]
		fi
	done
}
