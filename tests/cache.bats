#!/usr/bin/env bats
# sudoku-race's result cache (LMDB): where it lives, hits, verification of
# every hit, sharing between racers, a store that cannot be used, and the
# cache subcommands. Every test checks that nothing is left running.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	T=$BATS_TEST_TMPDIR
	export XDG_CACHE_HOME="$T/xdg"
	C="$XDG_CACHE_HOME/sudoku-race"
}

stat_line() { # the "cache:" line of --stats, from stderr
	grep 'sudoku-race: cache: [0-9]* hits' <<<"$stderr"
}

@test "the cache lives in \$XDG_CACHE_HOME/sudoku-race, created with mode 0700" {
	run --separate-stderr sudoku-race "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	[ -f "$C/data.mdb" ]
	assert_equal "$(stat -c %a "$XDG_CACHE_HOME")" 700
	assert_equal "$(stat -c %a "$C")" 700
}

@test "without XDG_CACHE_HOME: ~/.cache/sudoku-race" {
	run env -u XDG_CACHE_HOME HOME="$T/home" sudoku-race "$DATA/easy9.txt"
	assert_success
	[ -f "$T/home/.cache/sudoku-race/data.mdb" ]
	assert_equal "$(stat -c %a "$T/home/.cache")" 700
}

@test "a re-run hits the cache (--stats says so), with the same answers" {
	run --separate-stderr sudoku-race --stats --workers cp "$DATA/easy9.txt"
	assert_success
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 3 misses, 0 bad entries dropped, 3 written"
	run --separate-stderr sudoku-race --stats --json "$DATA/easy9.txt"
	assert_success
	assert_equal "$(stat_line)" "sudoku-race: cache: 3 hits, 0 misses, 0 bad entries dropped, 0 written"
	[[ ${lines[0]} == *'"cache":true'* ]]
	[[ ${lines[0]} == *'"winner":"cp"'* ]]
	run sudoku-race "$DATA/easy9.txt"
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
}

@test "the cache knows a puzzle in any notation" {
	sudoku-race "$DATA/notation-dots.txt" >/dev/null
	run --separate-stderr sudoku-race --stats "$DATA/notation-rows.txt"
	assert_success
	assert_equal "$(stat_line)" "sudoku-race: cache: 1 hits, 0 misses, 0 bad entries dropped, 0 written"
	assert_equal "$output" "$(sudoku-cp "$DATA/notation-rows.txt")"
}

@test "--no-cache neither reads nor writes; --cache DIR puts it elsewhere" {
	run sudoku-race --no-cache "$DATA/easy9.txt"
	assert_success
	[ ! -e "$XDG_CACHE_HOME" ]
	run sudoku-race --cache "$T/elsewhere" "$DATA/easy9.txt"
	assert_success
	[ -f "$T/elsewhere/data.mdb" ]
	[ ! -e "$XDG_CACHE_HOME" ]
	run sudoku-race --cache "$T/elsewhere" --no-cache "$DATA/easy9.txt"
	assert_failure 2
}

@test "unsat verdicts are cached too" {
	echo "12345678.........9$(printf '%.0s.' $(seq 63))" >"$T/in"
	run sudoku-race "$T/in"
	assert_failure 1
	assert_output "# unsat"
	run --separate-stderr sudoku-race --stats "$T/in"
	assert_failure 1
	assert_output "# unsat"
	assert_equal "$(stat_line)" "sudoku-race: cache: 1 hits, 0 misses, 0 bad entries dropped, 0 written"
}

# tamper DATA.MDB PUZZLE SOLUTION: changes one cell of the stored solution
# (a blank of the puzzle gets its neighbour's value: a clash in its row),
# in the file itself, as a disk error or a hand would.
tamper() {
	perl -e '
		my ($file, $p, $s) = @ARGV;
		my $pb = join "", map { chr($_ eq "." ? 0 : $_) } split //, $p;
		my $sb = join "", map { chr($_) } split //, $s;
		open my $fh, "+<:raw", $file or die "$file: $!";
		my $d = do { local $/; <$fh> };
		my $at = index($d, $pb . $sb);
		die "the entry is not in $file\n" if $at < 0;
		my $i = index($pb, chr(0));
		my $j = $i % 9 == 8 ? $i - 1 : $i + 1;
		substr($d, $at + length($pb) + $i, 1) = substr($sb, $j, 1);
		seek $fh, 0, 0;
		print $fh $d;
		close $fh or die;' "$@"
}

@test "a tampered entry is caught, dropped, and the puzzle raced again" {
	sudoku-race "$DATA/easy9.txt" >/dev/null
	tamper "$C/data.mdb" "$(head -n 1 "$DATA/easy9.txt")" "$(head -n 1 "$DATA/easy9.solutions")"
	run --separate-stderr sudoku-race --stats "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	[[ $stderr == *"cache: a bad entry for $DATA/easy9.txt: line 1 ("*"): dropped, the puzzle is raced"* ]]
	assert_equal "$(stat_line)" "sudoku-race: cache: 2 hits, 0 misses, 1 bad entries dropped, 1 written"
	# raced and stored again: all good now
	run --separate-stderr sudoku-race --stats "$DATA/easy9.txt"
	assert_equal "$(stat_line)" "sudoku-race: cache: 3 hits, 0 misses, 0 bad entries dropped, 0 written"
}

@test "a corrupt store: one warning, and the racer runs without it" {
	mkdir -p "$C"
	head -c 65536 /dev/urandom >"$C/data.mdb"
	run --separate-stderr sudoku-race "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(grep -c 'going on without the cache' <<<"$stderr")" 1
	assert_equal "$(wc -l <<<"$stderr")" 1
}

@test "a cache that cannot be created: one warning, and the racer runs without it" {
	mkdir -p "$XDG_CACHE_HOME"
	echo "a file" >"$C"
	run --separate-stderr sudoku-race "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(wc -l <<<"$stderr")" 1
	[[ $stderr == *"$C is not a directory; going on without the cache"* ]]
}

@test "two racers sharing a cache under parallel -j2 give correct answers" {
	grep -v '^#' "$top_srcdir/puzzles/acs-logic-solvable.txt" >"$T/a"
	{
		cat "$DATA/easy9.txt"
		grep -v '^#' "$top_srcdir/puzzles/acs-16x16-45.txt"
	} >"$T/b"
	cat "$T/a" "$T/b" >"$T/ab"
	# different puzzles at once, then the same puzzles at once
	parallel --will-cite -j2 --keep-order sudoku-race {} ::: "$T/a" "$T/b" >"$T/out1"
	run verify "$T/ab" "$T/out1"
	assert_success
	parallel --will-cite -j2 --keep-order sudoku-race {} ::: "$T/ab" "$T/ab" >"$T/out2"
	cat "$T/ab" "$T/ab" >"$T/abab"
	run verify "$T/abab" "$T/out2"
	assert_success
	run --separate-stderr sudoku-race --stats "$T/ab"
	assert_equal "$(stat_line)" "sudoku-race: cache: 29 hits, 0 misses, 0 bad entries dropped, 0 written"
}

@test "cache export, clear and import: a round trip" {
	sudoku-race --workers cp "$DATA/easy9.txt" >/dev/null
	run sudoku-race cache export
	assert_success
	assert_equal "${#lines[@]}" 3
	echo "$output" >"$T/exported"
	grep -q "^$(head -n 1 "$DATA/easy9.txt") $(head -n 1 "$DATA/easy9.solutions") winner=cp ms=" "$T/exported"
	run sudoku-race cache stats
	assert_success
	assert_line --index 0 "cache: $C"
	assert_line --partial "entries: 3 (3 solved"
	run sudoku-race cache clear
	assert_success
	assert_output "cache: $C: 3 entries cleared"
	run sudoku-race cache stats
	assert_line --partial "entries: 0"
	run --separate-stderr sudoku-race cache import "$T/exported"
	assert_success
	[[ $stderr == *"3 entries read, 3 written, 0 kept as they were, 0 rejected"* ]]
	run --separate-stderr sudoku-race --stats "$DATA/easy9.txt"
	assert_equal "$(stat_line)" "sudoku-race: cache: 3 hits, 0 misses, 0 bad entries dropped, 0 written"
	# into another machine's cache, from standard input
	run bash -c "sudoku-race --cache '$T/other' cache import < '$T/exported'"
	assert_success
	run sudoku-race --cache "$T/other" cache stats
	assert_line --partial "entries: 3"
}

@test "cache import rejects a wrong solution and keeps what it has" {
	p=$(head -n 1 "$DATA/easy9.txt")
	s=$(head -n 1 "$DATA/easy9.solutions")
	{
		echo "$p 123456789456789123789123456214365897365897214897214365531642978642978531978531642"
		echo "# a comment"
		echo "$p $s winner=cp ms=1 unique=yes"
		echo "garbage"
	} >"$T/lines"
	run --separate-stderr sudoku-race cache import "$T/lines"
	assert_failure 1
	[[ $stderr == *"$T/lines: line 1: not a solution"* ]]
	[[ $stderr == *"$T/lines: line 4: expected a puzzle and its answer"* ]]
	[[ $stderr == *"1 entries read, 1 written, 0 kept as they were, 2 rejected"* ]]
	run sudoku-race cache export
	assert_output --regexp "^$p $s winner=cp ms=1.000 unique=yes version=[0-9.]+\$"
}

@test "--count races a cached puzzle whose uniqueness is not known, then knows it" {
	sudoku-race "$DATA/easy9.txt" >/dev/null
	run --separate-stderr sudoku-race --count --stats "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 3 misses, 0 bad entries dropped, 3 written"
	run --separate-stderr sudoku-race --count --stats --json "$DATA/easy9.txt"
	[[ ${lines[0]} == *'"unique":true'*'"cache":true'* ]]
	run sudoku-race cache export
	assert_line --partial "unique=yes"
	refute_line --partial "unique=unknown"
}

@test "cache commands on a cache not made yet" {
	run sudoku-race cache stats
	assert_success
	assert_output --partial "(not created yet)"
	run sudoku-race cache export
	assert_success
	assert_output ""
	run sudoku-race cache frobnicate
	assert_failure 2
}
