#!/usr/bin/env bats
# sudoku-race as people read it: --progress on a terminal of a given size
# (script(1) gives a pseudo-terminal, stty sizes it) and off one, and the
# tables of --stats and --list-workers within 80 columns. Every test checks
# that nothing it started is left running.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	T=$BATS_TEST_TMPDIR
	slowpoke_answers
}

# slowpokes N DELAY: N slowpoke entries (told apart by a seed), comma-separated
slowpokes() {
	local i list=
	for i in $(seq 1 "$1"); do list+=",$(slowpoke "$2"):seed=$i"; done
	echo "${list#,}"
}

# frames FILE: what a terminal was sent, as the live display's frames (the
# text between two erasures). Prints "FRAMES MOST_ROWS WIDEST LAST_ROWS
# LAST_WIDEST"; the text after the last erasure goes to FILE.rest.
frames() {
	perl -0777 -ne '
		my @f = split /\r(?:\e\[\d+A)?\e\[J/;
		my $rest = @f > 1 ? pop @f : "";
		open my $o, ">", "$ARGV.rest" or die; print $o $rest;
		my ($n, $rows, $wide, $lrows, $lwide) = (0, 0, 0, 0, 0);
		for my $fr (@f) {
			next if $fr eq "";
			$fr =~ s/\r//g;
			my @r = split /\n/, $fr, -1;
			($lrows, $lwide) = (scalar @r, 0);
			for (@r) { $lwide = length if length > $lwide }
			$n++;
			$rows = $lrows if $lrows > $rows;
			$wide = $lwide if $lwide > $wide;
		}
		print "$n $rows $wide $lrows $lwide\n";' "$1"
}

# in_terminal ROWS COLS COMMAND: COMMAND on a pseudo-terminal of that size;
# what the terminal was sent goes to $T/tty
in_terminal() {
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	script -q -e -c "stty rows $1 cols $2; $3" /dev/null >"$T/tty"
}

@test "--progress on a terminal: never more rows or columns than it has; a summary at the end" {
	in_terminal 8 60 "sudoku-race --no-cache --schedule=all --progress \
		--workers '$(slowpokes 12 0.3)' '$DATA/easy9.txt' >'$T/out'"
	assert_equal "$(cat "$T/out")" "$(cat "$DATA/easy9.solutions")"
	read -r n rows wide _ < <(frames "$T/tty")
	echo "frames $n, at most $rows rows, $wide columns"
	[ "$n" -ge 2 ] # 3 puzzles at 0.3 s each, one after the other: redrawn every 0.1 s
	[ "$rows" -le 8 ]
	[ "$wide" -le 59 ]
	run perl -pe 's/\r//g; s/\e\[\d*A|\e\[J/\n/g' "$T/tty"
	# done/total, rate and ETA; the wins; 12 busy processes where 6 rows are left
	assert_line --regexp '^sudoku-race: [0-3]/3 puzzles \([0-9.]+%\), [0-9.]+/s(, ETA [0-9:]+( s)?)?, in [0-9.]+ s$'
	assert_line --regexp '^wins: (none yet|fake-slowpoke:answers=.* 1)'
	assert_line --regexp '^  fake-slowpoke:answers\.\.\. +puzzle [1-3] +all +[0-9.]+ s$'
	assert_line --regexp '^  \.\.\. [0-9]+ more busy$'
	# after the last erasure: the summary alone, within 80 columns
	[ "$(tr -d '\r' <"$T/tty.rest" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')" -le 80 ]
	run last_message <"$T/tty.rest"
	assert_output --regexp '^sudoku-race: 3 puzzles answered in [0-9.]+ s \([0-9.]+/s\): 3 solved; wins: fake-slowpoke:answers=.*:seed=[0-9]+ [1-3](, .*)?$'
	# no colour at all (NO_COLOR has nothing to turn off)
	! grep -q $'\e\\[[0-9;]*m' "$T/tty"
}

@test "--progress on a terminal: a busy process's row shows its latest progress report" {
	in_terminal 24 80 "sudoku-race --no-cache --progress --schedule=all \
		--workers 'fake-flooder:mode=progress,$(slowpoke 0.5)' '$DATA/easy9.txt' >'$T/out'"
	assert_equal "$(cat "$T/out")" "$(cat "$DATA/easy9.solutions")"
	run perl -pe 's/\r//g; s/\e\[\d*A|\e\[J/\n/g' "$T/tty"
	assert_line --regexp '^  fake-flooder:mode=pro\.\.\. +puzzle [1-3] +all +[0-9.]+ s nodes=1 cost=7$'
}

@test "--progress on a terminal follows its size (SIGWINCH)" {
	# small FILE: whether the terminal was sent a frame of 40 columns: its
	# first row (sudoku-race: 0/3 puzzles (0.0%), ...) cut to 39 characters,
	# where 70 columns hold all of it
	cat >"$T/small" <<-'EOF'
		#!/bin/sh
		exec perl -0777 -ne 'exit !grep { length($_) <= 39 } /(?:\A|\e\[J)(sudoku-race: [^\r\n]*)/g' "$1"
	EOF
	chmod +x "$T/small"
	# Resized once the racer listens for SIGWINCH (its SigCgt), after it
	# read the first size (10 s at most; not a fixed 0.3 s, which a slow
	# start outlasted: it read the small size at its start). Then SIGWINCH
	# until a frame of the small size was drawn (10 s at most), then SIGINT
	# until it ends: a signal that came before the racer listened for it
	# was lost, and is sent again. Not both at once: the racer read SIGINT
	# first, and with no worker to wait for it ended before it drew at the
	# new size.
	in_terminal 20 70 "sudoku-race --no-cache --schedule=all --progress \
		--workers '$(slowpokes 12 30)' '$DATA/easy9.txt' >'$T/out' & pid=\$!
		i=0
		until m=\$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/\$pid/status 2>/dev/null)
			[ \$((0x0\${m#????????} & 0x08000000)) -ne 0 ] || [ \$i -ge 200 ]; do
			sleep 0.05; i=\$((i + 1))
		done
		stty rows 5 cols 40
		i=0
		while kill -WINCH \$pid 2>/dev/null && ! '$T/small' '$T/tty' && [ \$i -lt 50 ]; do
			sleep 0.2; i=\$((i + 1))
		done
		while kill -INT \$pid 2>/dev/null; do sleep 0.2; done
		wait \$pid; echo status \$?"
	read -r n rows wide lrows lwide < <(frames "$T/tty")
	echo "frames $n, at most $rows rows and $wide columns; the last $lrows rows, $lwide columns"
	[ "$rows" -le 20 ]
	[ "$wide" -le 69 ]
	# the last frames were drawn after the resize, before SIGINT was read
	[ "$n" -ge 1 ]
	[ "$lrows" -le 5 ]
	[ "$lwide" -le 39 ]
	[[ $(cat "$T/tty.rest") == "sudoku-race: 0 of 3 puzzles answered in "*$'\r\n'"status 130"* ]]
}

@test "--progress off a terminal: a line every --progress-ms, and a summary" {
	run --separate-stderr sudoku-race --no-cache --progress --progress-ms 100 -j 1 \
		--workers "$(slowpoke 0.3)" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	echo "$stderr"
	# 0.9 s at least: a line every 0.1 s
	n=$(grep -c '^sudoku-race: progress: ' <<<"$stderr" || true)
	[ "$n" -ge 2 ]
	# every one of them says done/total, rate, ETA while there is one, time
	run grep '^sudoku-race: progress: ' <<<"$stderr"
	run grep -c -v -E '^sudoku-race: progress: [0-3]/3 puzzles \([0-9.]+%\), [0-9.]+/s(, ETA [0-9:]+( s)?)?, in [0-9.]+ s$' \
		<<<"$(grep '^sudoku-race: progress: ' <<<"$stderr")"
	assert_output 0
	[[ $(last_message <<<"$stderr") =~ ^sudoku-race:\ 3\ puzzles\ answered\ in\ [0-9.]+\ s\ \([0-9.]+/s\):\ 3\ solved\;\ wins:\ fake-slowpoke:answers=.*\ 3$ ]]
}

@test "--progress: a fast batch still ends with a summary; from a pipe the total is '?'" {
	for i in $(seq 1 100); do cat "$DATA/easy9.txt"; echo 'not a puzzle'; done >"$T/in"
	run --separate-stderr sudoku-race --no-cache --progress --workers cp "$T/in"
	assert_failure 1
	[[ $(last_message <<<"$stderr") =~ ^sudoku-race:\ 400\ puzzles\ answered\ in\ [0-9.]+\ s\ \([0-9.]+/s\):\ 300\ solved,\ 100\ invalid\;\ wins:\ cp\ 300$ ]]
	# the pipe stays open until a progress line was written (10 s at most):
	# the lines until then cannot know the total. (Not a fixed 0.5 s: a
	# racer slower to start than that read the three lines and their end
	# at once, and knew the total from its first line on.)
	run_files sudoku-race --no-cache --progress --progress-ms 1 --workers "$(slowpoke 0.05)" \
		< <(feed_after "$DATA/easy9.txt" grep -q '^sudoku-race: progress: ' "$T/err")
	assert_success
	[[ $stderr == *"sudoku-race: progress: "[0-1]"/? puzzles, "* ]]
	[[ $(last_message <<<"$stderr") == "sudoku-race: 3 puzzles answered in "* ]]
	# a regular file on standard input is counted up front
	run --separate-stderr sudoku-race --no-cache --progress --progress-ms 1 --workers "$(slowpoke 0.05)" \
		<"$DATA/easy9.txt"
	assert_success
	[[ $stderr == *"sudoku-race: progress: "[0-3]"/3 puzzles "* ]]
	[[ $stderr != *"/? puzzles"* ]]
}

@test "--progress: a grid over several lines is one puzzle of the total" {
	for i in 1 2 3 4 5; do cat "$DATA/notation-rows.txt"; echo; done >"$T/in"
	# the slowpoke's answer to it, as the racer sends it
	echo "$(tr -d ' \n' <"$DATA/notation-rows.txt" | tr 0 .) $(sudoku-cp "$DATA/notation-rows.txt" | tr -d ' \n')" \
		>"$T/answers"
	run --separate-stderr sudoku-race --no-cache --progress --progress-ms 1 --workers "$(slowpoke 0.1)" "$T/in"
	assert_success
	assert_equal "${#lines[@]}" 5
	echo "$stderr"
	# the total: the five grids, not the 50 lines; never fewer than answered
	[[ $stderr == *"sudoku-race: progress: "[0-5]"/5 puzzles"* ]]
	[ "$(grep '^sudoku-race: progress: ' <<<"$stderr" | grep -c -v '/5 puzzles')" -eq 0 ]
	[[ $(last_message <<<"$stderr") == "sudoku-race: 5 puzzles answered in "* ]]
}

# within80 FILE: fails, naming it, on a line of --stats (from its first
# line on: warnings before it are not its) wider than 80 columns
within80() {
	local wide
	wide=$(awk '/^sudoku-race: [0-9]+ puzzles in / { on = 1 } on && length > 80 { print NR ": " length ": " $0 }' "$1")
	grep -q '^sudoku-race: [0-9]* puzzles in ' "$1" || { echo "no --stats in $1" >&2; return 1; }
	[ -z "$wide" ] || { echo "wider than 80 columns: $wide" >&2; return 1; }
}

# adds_up: every row of --stats' requests table (read on stdin): sent is
# the sum of the columns after it
adds_up() {
	awk '
		$1 == "worker" { t = $2 == "sent"; n = NF; next }
		!t || NF == 0 { t = 0; next }
		NF == 1 { next } # a label on a line of its own
		{
			k = NF - (n - 2); s = 0
			for (i = k + 1; i <= NF; i++) s += $i
			if (s != $k) { print "does not add up: " $0; bad = 1 }
			rows++
		}
		END { if (!rows) print "no rows"; exit bad || !rows }'
}

@test "--stats: within 80 columns; each worker's requests add up to 'sent'" {
	for i in $(seq 1 20); do cat "$DATA/easy9.txt"; done >"$T/in"
	# the default portfolio
	run --separate-stderr race --stats "$T/in"
	assert_success
	echo "$stderr" >"$T/stats"
	within80 "$T/stats"
	adds_up <"$T/stats"
	# cancelled and late: every puzzle to both at once
	run --separate-stderr race --stats --schedule=all --workers "$(slowpoke 0.05)","$(slowpoke 0.3)" \
		"$DATA/easy9.txt"
	assert_success
	echo "$stderr" >"$T/stats"
	within80 "$T/stats"
	adds_up <"$T/stats"
	assert_equal "$(stat_of "$(slowpoke 0.05)" won <"$T/stats")" 3
	assert_equal "$(stat_of "$(slowpoke 0.3)" sent <"$T/stats")" 3
	# wrong answers (the liar as presolver: it is waited for, and gets
	# every puzzle; raced all at once, a liar 0.3 s late to say hello, as
	# on a loaded machine, missed the first)
	run --separate-stderr race --stats --presolver fake-liar --workers fake-liar,"$(slowpoke 0.2)" \
		"$DATA/easy9.txt"
	adds_up <<<"$stderr"
	assert_equal "$(stat_of fake-liar wrong <<<"$stderr")" 3
	# lost: a crasher's requests in flight when it died (alone, it gets
	# them all until it is left out)
	run --separate-stderr race --stats --workers fake-crasher "$DATA/easy9.txt"
	assert_failure 1
	adds_up <<<"$stderr"
	[ "$(stat_of fake-crasher lost <<<"$stderr")" -ge 1 ]
	# unsat proved by the winner is a win, counted once
	echo "12345678.........9$(printf '%.0s.' $(seq 63))" >"$T/unsat"
	run --separate-stderr race --stats --count --schedule=all --workers cp,dlx "$T/unsat"
	adds_up <<<"$stderr"
	assert_equal "$(( $(stat_of cp won <<<"$stderr") + $(stat_of dlx won <<<"$stderr") ))" 1
}

# listening PID: the racer PID listens for SIGINT; its slowpoke runs
listening() {
	catches "$1" INT && running fake-slowpoke
}

@test "--stats after SIGINT: what was in flight is 'open'" {
	sudoku-race --no-cache --stats --workers "$(slowpoke 30)" "$DATA/easy9.txt" 2>"$T/stats" & pid=$!
	# not a fixed 0.5 s: the slowpoke running, and the racer listening for
	# SIGINT (a background job of bats starts with SIGINT ignored: one sent
	# before is lost, and the racer goes on for the slowpoke's 30 s)
	poll 10 listening $pid
	kill -INT $pid
	status=0
	wait $pid || status=$?
	assert_equal "$status" 130
	within80 "$T/stats"
	adds_up <"$T/stats"
	# the slowpoke answers nothing in 30 s: all it was sent is open
	assert_equal "$(stat_of "$(slowpoke 30)" open <"$T/stats")" "$(stat_of "$(slowpoke 30)" sent <"$T/stats")"
}

# nodevice_worker DETAIL: $T/fake-nodevice, a worker whose hello says it
# has no device, with DETAIL as its reason.
nodevice_worker() {
	cat >"$T/fake-nodevice" <<-EOF
		#!/bin/bash
		echo "hello nodevice 1 proto=1 kind=complete sizes=3-3 device=none detail=${1// /_}"
		while read -r _; do :; done
	EOF
	chmod +x "$T/fake-nodevice"
}

@test "--stats: a worker's long reason is wrapped at words, its label on a line of its own" {
	words="no CUDA device (CUDA driver version is insufficient for CUDA runtime version); --emulate runs the kernels on the CPU"
	nodevice_worker "$words"
	# alone, it is waited for: its hello is read before the end
	run --separate-stderr race --stats --workers "$T/fake-nodevice" "$DATA/easy9.txt"
	assert_failure 1
	echo "$stderr" >"$T/stats"
	within80 "$T/stats"
	adds_up <"$T/stats"
	# the status, its lines joined, says it all
	status=$(awk -v l="$T/fake-nodevice" '
		$0 == l { on = 1; s = ""; next }
		on && /^ / { sub(/^ +/, ""); s = s (s ? " " : "") $0; next }
		{ on = 0 }
		END { print s }' "$T/stats")
	echo "status: $status"
	[[ $status == *"unavailable: no device: $words" ]]
	# a detail past 255 bytes is cut after a word
	long="$words; $words; $words"
	sed -i "s/detail=[^\"]*/detail=${long// /_}/" "$T/fake-nodevice"
	run --separate-stderr race --stats --workers "$T/fake-nodevice" "$DATA/easy9.txt"
	echo "$stderr" >"$T/stats"
	within80 "$T/stats"
	grep -q -E '(^| )(CUDA|device|driver|version|is|insufficient|for|runtime|--emulate|runs|the|kernels|on|CPU;?|no|\(CUDA|version\);)\.\.\.$' "$T/stats"
}

@test "--list-workers: within 80 columns; a status wrapped at words, a program below it" {
	words="no CUDA device (CUDA driver version is insufficient for CUDA runtime version); --emulate runs the kernels on the CPU"
	nodevice_worker "$words"
	run sudoku-race --list-workers
	assert_success
	echo "$output" >"$T/list"
	[ -z "$(awk 'length > 80' "$T/list")" ]
	assert_line --index 0 --regexp '^WORKER +KIND +SIZES +DEVICE +STATUS$'
	assert_line --regexp '^cp +complete +4x4-64x64 +cpu +available: version [0-9.]+$'
	assert_line --regexp "^ +$top_builddir/workers/sudoku-cp\$"
	run sudoku-race --list-workers --workers cp,"$T/fake-nodevice"
	assert_success
	echo "$output" >"$T/list"
	[ -z "$(awk 'length > 80' "$T/list")" ]
	# the label on a line of its own; the status's lines joined say it all
	assert_line "$T/fake-nodevice"
	status=$(awk -v l="$T/fake-nodevice" '
		$0 == l { on = 1; next }
		on && /^ / { sub(/^ +complete +9x9-9x9 +none +/, ""); sub(/^ +/, ""); s = s (s ? " " : "") $0 }
		END { print s }' "$T/list")
	assert_equal "$status" "unavailable: no device: $words"
}

# keys FILE: each line's JSON keys, in order, "status: key,key,..." (perl's
# JSON::PP keeps no order: the keys are read in order by a regex over the
# top level, after a check that the line parses)
keys() {
	perl -MJSON::PP -ne '
		my $o = decode_json($_);
		s/"workers":\[.*\]/"workers":[]/;
		my @k = /[{,]"([a-z_]+)":/g;
		print "$o->{status}: ", join(",", @k), "\n"' "$1"
}

@test "--json: the keys docs/json.md documents, per status" {
	{
		head -n 1 "$DATA/easy9.txt"                                # solved
		sed -n 3p "$top_srcdir/puzzles/examples.txt"                 # multiple (--count)
		echo "12345678.........9$(printf '%.0s.' $(seq 63))"          # unsat
		echo "11$(printf '%.0s.' $(seq 79))"                          # unsat: givens clash
		echo "not a puzzle"                                          # invalid
	} >"$T/in"
	race --json --workers cp "$T/in" >"$T/out" || true
	run keys "$T/out"
	common=winner,worker_ms,ms,cache,stage,workers
	assert_line --index 0 "solved: line,file,puzzle,status,solution,reason,unique,$common"
	assert_line --index 2 "unsat: line,file,puzzle,status,solution,reason,confirmed,provers,$common"
	assert_line --index 3 "unsat: line,file,puzzle,status,solution,reason,confirmed,provers,$common"
	assert_line --index 4 "invalid: line,file,status,solution,reason,$common"
	[[ $(sed -n 4p "$T/out") == *'"reason":"line 4: value 1 twice in row 1 '* ]]
	race --json --count --workers cp <"$T/in" >"$T/out" || true
	run keys "$T/out"
	assert_line --index 0 "solved: line,puzzle,status,solution,reason,unique,count,count_limit,confirmed,provers,$common"
	assert_line --index 1 "multiple: line,puzzle,status,solution,reason,unique,count,count_limit,confirmed,provers,$common"
	assert_line --index 2 "unsat: line,puzzle,status,solution,reason,count,count_limit,confirmed,provers,$common"
	race --json --timeout 0.2 --workers "$(slowpoke 30)" "$DATA/easy9.txt" >"$T/out" || true
	run keys "$T/out"
	assert_line --index 0 "timeout: line,file,puzzle,status,solution,reason,$common"
	race --json --workers fake-liar "$DATA/easy9.txt" >"$T/out" 2>/dev/null || true
	run keys "$T/out"
	assert_line --index 0 "unsolved: line,file,puzzle,status,solution,reason,$common"
	race --json --workers eda "$DATA/36x36.txt" >"$T/out" || true
	run keys "$T/out"
	assert_line --index 0 "unsupported: line,file,puzzle,status,solution,reason,$common"
}

@test "bash completion offers the racer's new names (it reads --help)" {
	run bash -c "source '$top_srcdir/contrib/completion/sudoku-race.bash'
		for w in --ti --co --progress; do
			COMP_WORDS=(sudoku-race \$w); COMP_CWORD=1; _sudoku_race_complete; echo \"\${COMPREPLY[*]}\"
		done"
	assert_success
	assert_line --index 0 "--time-limit --timeout"
	assert_line --index 1 "--count"
	assert_line --index 2 "--progress --progress-ms"
}

@test "--progress to a log: summary lines only; the workers' reports with --verbose" {
	run --separate-stderr sudoku-race --no-cache --progress --progress-ms 100 \
		--workers fake-flooder:mode=progress,"$(slowpoke 0.5)" "$DATA/easy9.txt"
	assert_success
	[ "$(grep -c 'nodes=1 cost=7' <<<"$stderr")" -eq 0 ]
	[ "$(grep -c '^sudoku-race: progress: ' <<<"$stderr")" -ge 2 ]
	run --separate-stderr sudoku-race --no-cache --progress --progress-ms 100 --verbose \
		--workers fake-flooder:mode=progress,"$(slowpoke 0.5)" "$DATA/easy9.txt"
	assert_success
	[ "$(grep -c 'nodes=1 cost=7' <<<"$stderr")" -ge 1 ]
	# every line within 80 columns, the summary too
	[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' <<<"$stderr")" -le 80 ]
}

@test "-q: no warnings, the errors and answers as before" {
	run --separate-stderr sudoku-race --no-cache --presolver=fake-nayer --workers fake-nayer,dlx "$DATA/easy9.txt"
	assert_success
	[[ $stderr == *"left out from now on"* ]]
	run --separate-stderr sudoku-race --no-cache -q --presolver=fake-nayer --workers fake-nayer,dlx "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$stderr" ""
	run --separate-stderr sudoku-race -q --frob
	assert_failure 2
	[[ $stderr == *"unrecognized option"* ]]
}

@test "--stats=json, --list-workers --json and cache stats --json: each object valid" {
	run --separate-stderr sudoku-race --no-cache --stats=json --workers cp "$DATA/easy9.txt"
	assert_success
	run python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(d["puzzles"], d["solved"], d["workers"][0]["worker"], d["workers"][0]["won"])' "$stderr"
	assert_output "3 3 cp 3"
	run sudoku-race --list-workers --json --workers cp,fake-mute --hello-timeout 0.5
	assert_success
	run python3 -c 'import json, sys
for line in sys.stdin: d = json.loads(line); print(d["worker"], d["available"], d["sizes"])' <<<"$output"
	assert_line "cp True 4x4-64x64"
	assert_line "fake-mute False None"
	sudoku-race --cache "$T/c" "$DATA/easy9.txt" >/dev/null
	run sudoku-race --cache "$T/c" --json cache stats
	assert_success
	run python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(d["entries"], d["solved"])' "$output"
	assert_output "3 3"
}
