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

# A test that mounts a file system of its own (MNT) has it unmounted.
teardown() {
	if [ -n "${MNT:-}" ]; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true
		MNT=
	fi
	end_session
	assert_no_leftovers
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
# in the file itself, every copy of it, as a disk error or a hand would. The entry is found by
# its cells as format 3 packs them (racer/cache_value.h): the givens' mask,
# then the solution's cells, 4 bits each, low nibble first.
tamper() {
	perl -e '
		my ($file, $p, $s) = @ARGV;
		my @p = split //, $p;
		my @s = split //, $s;
		my $mask = "\0" x 11;
		vec($mask, $_, 1) = 1 for grep { $p[$_] ne "." } 0 .. 80;
		my $cells = join "", map { chr($s[2 * $_] | ($s[2 * $_ + 1] // 0) << 4) } 0 .. 40;
		open my $fh, "+<:raw", $file or die "$file: $!";
		my $d = do { local $/; <$fh> };
		my $i = (grep { $p[$_] eq "." } 0 .. 80)[0];
		my $j = $i % 9 == 8 ? $i - 1 : $i + 1;
		my ($at, $found) = (0, 0);
		# every copy: a page an earlier transaction left holds one too
		while (($at = index($d, $mask . $cells, $at)) >= 0) {
			my $byte = $at + 11 + int($i / 2);
			my $b = ord substr($d, $byte, 1);
			$b = $i % 2 ? ($b & 0x0f) | $s[$j] << 4 : ($b & 0xf0) | $s[$j];
			substr($d, $byte, 1) = chr $b;
			$found++;
		}
		die "the entry is not in $file\n" unless $found;
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

@test "one batch of hits, misses and a tampered entry: each puzzle gets its own answer, in input order" {
	# the reader makes a batch's look-ups in the order of their keys and
	# answers them in the order asked (cache_reader.c): 2,000 puzzles, every
	# other one stored, interleaved, so that each batch mixes the three
	xz -dc "$top_srcdir/puzzles/9x9/puzzles2_17_clue.xz" | grep -v '^#' | head -n 2000 >"$T/all"
	awk 'NR % 2' "$T/all" >"$T/odd"
	sudoku-cp "$T/all" >"$T/expected"
	sudoku-race --workers cp "$T/odd" >/dev/null
	tamper "$C/data.mdb" "$(head -n 1 "$T/odd")" "$(head -n 1 "$T/expected")"
	run --separate-stderr sudoku-race --stats --workers cp "$T/all"
	assert_success
	assert_equal "$output" "$(cat "$T/expected")"
	assert_equal "$(stat_line)" "sudoku-race: cache: 999 hits, 1000 misses, 1 bad entries dropped, 1001 written"
	[[ $stderr != *"not asked"* ]]
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
	assert_equal "${#lines[@]}" 4
	assert_line --index 0 "# sudoku-race cache v2"
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
	assert_line --index 0 "# sudoku-race cache v2"
	# the claim unique=yes is proved again on import, and says by whom
	assert_line --index 1 --regexp "^$p $s winner=cp ms=1.000 unique=yes provers=cp version=[0-9.]+\$"
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
	assert_output "# sudoku-race cache v2"
	run sudoku-race cache frobnicate
	assert_failure 2
}

# --- a damaged store (issue 15) ---

GENERATE="$top_builddir/tools/sudoku-generate"

# A store of 300 solved 9x9 puzzles (a file of some hundred pages), in $C;
# the puzzles in $T/p, their answers in $T/s.
make_store() {
	"$GENERATE" --box=3 --keep=0.45 --number=300 --seed=5 | grep -v '^#' >"$T/p"
	sudoku-race --workers cp "$T/p" >"$T/s"
	[ "$(wc -l <"$T/s")" -eq 300 ]
	[ "$(stat -c %s "$C/data.mdb")" -gt 100000 ]
}

# all_solved PUZZLES ANSWERS: every answer a solution (a puzzle of 45%
# givens may have several: any will do).
all_solved() {
	run verify "$1" "$2"
	assert_success
	assert_line "$(wc -l <"$1") ok, 0 none, 0 wrong"
}

# garble FILE OFFSET SEED: 4096 random bytes (from SEED) over FILE at OFFSET.
garble() {
	perl -e 'srand($ARGV[0]); print map { chr int rand 256 } 1 .. 4096' "$3" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

@test "a store cut to half its length: reported once, set aside, the answers right; stats and clear work" {
	make_store
	cp -r "$C" "$T/saved"
	size=$(stat -c %s "$C/data.mdb")
	truncate -s $((size / 2)) "$C/data.mdb"
	run --separate-stderr sudoku-race "$T/p"
	assert_success
	assert_equal "$(wc -l <<<"$stderr")" 1
	[[ $stderr =~ ^"sudoku-race: cache: $C/data.mdb is damaged (cut short: $((size / 2)) bytes, where its pages take "[0-9]+"); set aside as $C/data.mdb.damaged-"[0-9-]+"; going on without the cache"$ ]]
	aside=$(sed 's/.*set aside as \(.*\); going on.*/\1/' <<<"$stderr")
	echo "$output" >"$T/out"
	all_solved "$T/p" "$T/out"
	[ -f "$aside" ]
	[ ! -e "$C/data.mdb" ]
	# a new store from then on
	run --separate-stderr sudoku-race --stats "$T/p"
	assert_success
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 300 misses, 0 bad entries dropped, 300 written"
	run --separate-stderr sudoku-race --stats "$T/p"
	assert_equal "$(stat_line)" "sudoku-race: cache: 300 hits, 0 misses, 0 bad entries dropped, 0 written"
	# the commands: stats says so (no signal), clear removes it
	for cmd in stats export; do
		rm -rf "$C" && cp -r "$T/saved" "$C" && truncate -s $((size / 2)) "$C/data.mdb"
		run --separate-stderr sudoku-race cache $cmd
		assert_failure 2
		[[ $stderr == *"$C/data.mdb is damaged (cut short: "*"; set aside as $C/data.mdb.damaged-"* ]]
	done
	rm -rf "$C" && cp -r "$T/saved" "$C" && truncate -s $((size / 2)) "$C/data.mdb"
	run sudoku-race cache clear
	assert_success
	assert_output --regexp "^cache: $C/data.mdb was damaged \\(cut short: .*\\): removed\$"
	run sudoku-race cache stats
	assert_success
	assert_line --partial "entries: 0"
}

@test "random bytes in a store: never a crash, the answers right, at most one report" {
	skip_if_wrapped "reads garbage pages through a fault trap, which Valgrind reports as invalid reads"
	make_store
	cp -r "$C" "$T/saved"
	size=$(stat -c %s "$C/data.mdb")
	for at in $((size / 4)) $((size / 2)) $((size * 3 / 4)) $((size - 8192)); do
		for seed in 1 2 3; do
			what="bytes at $at, seed $seed"
			# no signal first: racer, stats, export, clear
			rm -rf "$C" && cp -r "$T/saved" "$C" && garble "$C/data.mdb" "$at" "$seed"
			run --separate-stderr sudoku-race "$T/p"
			race_status=$status race_output=$output race_stderr=$stderr
			statuses=$race_status
			for cmd in stats export clear; do
				rm -rf "$C" && cp -r "$T/saved" "$C" && garble "$C/data.mdb" "$at" "$seed"
				run --separate-stderr sudoku-race cache $cmd
				statuses="$statuses $status"
				[ "$status" -eq 0 ] || [[ $stderr == *"is damaged ("*"); set aside as "* ]]
			done
			# stats and export may find it damaged (2); clear always works
			[[ "$what: $statuses" =~ ": 0 "[02]" "[02]" 0"$ ]]
			echo "$race_output" >"$T/out"
			all_solved "$T/p" "$T/out"
			[ "$(grep -c 'is damaged' <<<"$race_stderr")" -le 1 ]
			# anything else said is about one bad entry
			run grep -v -e 'is damaged' -e 'a bad entry for' <<<"$race_stderr"
			assert_output ""
		done
	done
}

# --- a bounded size (issue 15) ---

@test "--cache-size: the file stays within it, the least recently used entries go, the answers stay right" {
	"$GENERATE" --box=3 --keep=0.45 --number=440 --seed=9 | grep -v '^#' >"$T/p"
	sudoku-cp "$T/p" >"$T/s"
	paste -d ' ' "$T/p" "$T/s" >"$T/lines"
	head -n 40 "$T/lines" >"$T/a"
	tail -n +41 "$T/lines" >"$T/b"
	run --separate-stderr sudoku-race --cache-size 256K cache import "$T/a"
	assert_success
	# puzzle 1 used again: now the most recent of the first 40
	run --separate-stderr sudoku-race --stats <(head -n 1 "$T/p")
	assert_equal "$(stat_line)" "sudoku-race: cache: 1 hits, 0 misses, 0 bad entries dropped, 0 written"
	# the store keeps its limit: no --cache-size from here on
	run --separate-stderr sudoku-race cache import "$T/b"
	assert_success
	[[ $stderr == *"400 entries read, 400 written"* ]]
	[ "$(stat -c %s "$C/data.mdb")" -le 262144 ]
	run sudoku-race cache stats
	assert_line --partial "at most 262144 (--cache-size)"
	# what is left is the most recently used: a tail of 2..40, 1, 41..440
	{ sed -n '2,40p' "$T/p"; head -n 1 "$T/p"; tail -n +41 "$T/p"; } >"$T/order"
	sudoku-race cache export | tail -n +2 | cut -d' ' -f1 | sort >"$T/kept"
	n=$(wc -l <"$T/kept")
	[ "$n" -gt 20 ]
	[ "$n" -lt 440 ]
	assert_equal "$(tail -n "$n" "$T/order" | sort)" "$(cat "$T/kept")"
	# and a race over all of them: right answers, no word from the cache
	run --separate-stderr sudoku-race "$T/p"
	assert_success
	assert_equal "$stderr" ""
	echo "$output" >"$T/out"
	all_solved "$T/p" "$T/out"
	[ "$(stat -c %s "$C/data.mdb")" -le 262144 ]
}

@test "--cache-size far below the store's size: entries are evicted to fit, and the run's answers are still written" {
	# a store of 2,500 entries (some 1.2 MB) cut to 256K: LMDB maps no
	# less than its pages, so without room for page copies every write
	# failed (MDB_MAP_FULL) and the run went on without a cache
	"$GENERATE" --box=3 --keep=0.45 --number=3000 --seed=11 | grep -v '^#' >"$T/p"
	head -n 2500 "$T/p" >"$T/a"
	tail -n 500 "$T/p" >"$T/b"
	run --separate-stderr sudoku-race "$T/a"
	assert_success
	run --separate-stderr sudoku-race --cache-size 256K --stats "$T/b"
	assert_success
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 500 misses, 0 bad entries dropped, 500 written"
	[[ $stderr != *"full"* ]]
	echo "$output" >"$T/out"
	all_solved "$T/b" "$T/out"
	run sudoku-race cache stats
	assert_line --partial "at most 262144 (--cache-size)"
	entries=$(sed -n 's/^entries: \([0-9]*\).*/\1/p' <<<"$output")
	[ "$entries" -gt 0 ]
	[ "$entries" -lt 500 ]
	# the last written are kept: a second run finds some of them
	run --separate-stderr sudoku-race --stats <(tail -n 20 "$T/b")
	assert_success
	[[ $(stat_line) != *"cache: 0 hits"* ]]
}

@test "--cache-size just the store's size, its pages all in use: entries are evicted, the run's answers written" {
	# a store grown under the default size has no free page; at a size of
	# just its file, not even an eviction had room for its page copies
	"$GENERATE" --box=3 --keep=0.45 --number=1500 --seed=13 | grep -v '^#' >"$T/p"
	head -n 1000 "$T/p" >"$T/a"
	tail -n 500 "$T/p" >"$T/b"
	sudoku-race "$T/a" >/dev/null
	size=$(stat -c %s "$C/data.mdb")
	run --separate-stderr sudoku-race --cache-size $((size / 1024))K --stats "$T/b"
	assert_success
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 500 misses, 0 bad entries dropped, 500 written"
	[[ $stderr != *"full"* ]]
	echo "$output" >"$T/out"
	all_solved "$T/b" "$T/out"
	# the last written are kept: a second run finds some of them
	run --separate-stderr sudoku-race --stats "$T/b"
	assert_success
	[[ $(stat_line) != *"cache: 0 hits"* ]]
}

@test "a warm run of a store far below its size writes nothing; past a third of it, its oldest hits are written down" {
	"$GENERATE" --box=3 --keep=0.45 --number=600 --seed=9 | grep -v '^#' >"$T/p"
	sudoku-race "$T/p" >/dev/null
	# (its bytes, not its mtime: a commit rewrites a meta page at least,
	# and no file system's clock is too coarse for that)
	before=$(cksum <"$C/data.mdb")
	run --separate-stderr sudoku-race --stats "$T/p"
	assert_equal "$(stat_line)" "sudoku-race: cache: 600 hits, 0 misses, 0 bad entries dropped, 0 written"
	assert_equal "$(cksum <"$C/data.mdb")" "$before"
	# 256K: the store (some 200K) is past a third of it, and a hit on an
	# entry of the oldest eighth moves it in the order of use: a write
	rm -rf "$C"
	sudoku-cp "$T/p" | paste -d ' ' "$T/p" - >"$T/lines"
	sudoku-race --cache-size 256K cache import "$T/lines" 2>/dev/null
	sudoku-race cache export | tail -n +2 | cut -d' ' -f1 >"$T/kept"
	oldest=$(grep -x -F -f "$T/kept" "$T/p" | head -n 1)
	before=$(cksum <"$C/data.mdb")
	run --separate-stderr sudoku-race --stats <(echo "$oldest")
	assert_equal "$(stat_line)" "sudoku-race: cache: 1 hits, 0 misses, 0 bad entries dropped, 0 written"
	[ "$(cksum <"$C/data.mdb")" != "$before" ]
}

@test "--cache-size takes K, M, G and refuses nonsense" {
	run sudoku-race --cache-size 2M --stats "$DATA/easy9.txt"
	assert_success
	run sudoku-race cache stats
	assert_line --partial "at most 2097152 (--cache-size)"
	for bad in 12 1X -5M 100K "" "1 " 2MB5 0.5Q; do
		run sudoku-race --cache-size "$bad" "$DATA/easy9.txt"
		assert_failure 2
		assert_output --partial "--cache-size: '$bad' is not a size"
	done
}

# --- the export format (issue 15) ---

@test "cache import: the header's version is checked; a file without one is read as 0.1 wrote it" {
	p=$(head -n 1 "$DATA/easy9.txt")
	s=$(head -n 1 "$DATA/easy9.solutions")
	printf '# sudoku-race cache v3\n%s %s winner=cp ms=1\n' "$p" "$s" >"$T/v3"
	run --separate-stderr sudoku-race cache import "$T/v3"
	assert_failure 2
	[[ $stderr == *"cache import: $T/v3: line 1: an export of version '3': this sudoku-race reads version 2 and version 1 (no header line); nothing read from it"* ]]
	run sudoku-race cache stats
	assert_line --partial "entries: 0"
	printf '\n# sudoku-race cache vX\n' >"$T/vx"
	run --separate-stderr sudoku-race cache import "$T/vx"
	assert_failure 2
	[[ $stderr == *"$T/vx: line 2: an export of version 'X'"* ]]
	printf '%s %s winner=cp ms=1.000 unique=unknown version=0.1.0\n' "$p" "$s" >"$T/v1"
	run --separate-stderr sudoku-race cache import "$T/v1"
	assert_success
	[[ $stderr == *"$T/v1: no '# sudoku-race cache v2' header line: read as sudoku-race 0.1 wrote it (version 1)"* ]]
	[[ $stderr == *"1 entries read, 1 written"* ]]
}

# --- import trusts nothing (issue 15) ---

@test "cache import: a forged unsat is dropped and never served" {
	p=$(head -n 1 "$DATA/easy9.txt")
	echo "$p unsat winner=cp" >"$T/forged"
	run --separate-stderr sudoku-race cache import "$T/forged"
	assert_failure 1
	[[ $stderr == *"0 unsat or unique= claims proved again by sudoku-cp, 1 dropped (1 unsat where it finds a solution, 0 unique= it finds wrong, 0 it could not prove in 10 s)"* ]]
	run sudoku-race --workers dlx <(echo "$p")
	assert_success
	assert_output "$(head -n 1 "$DATA/easy9.solutions")"
	# a true one is proved, and kept with its prover
	echo "12345678.........9$(printf '%.0s.' $(seq 63)) unsat winner=dlx" >"$T/true"
	run --separate-stderr sudoku-race cache import "$T/true"
	assert_success
	run sudoku-race cache export
	assert_line --regexp "^12345678\.{9}9\.{63} unsat winner=dlx ms=0.000 unique=unknown provers=cp version="
}

@test "cache import: a forged unique=yes on an empty grid is dropped; --count finds several solutions" {
	empty=$(printf '%.0s.' $(seq 81))
	s=$(head -n 1 "$DATA/easy9.solutions")
	echo "$empty $s winner=cp unique=yes" >"$T/forged"
	run --separate-stderr sudoku-race cache import "$T/forged"
	assert_failure 1
	[[ $stderr == *"1 dropped (0 unsat where it finds a solution, 1 unique= it finds wrong"* ]]
	run sudoku-race --count <(echo "$empty")
	assert_failure 1
	assert_output "# multiple solutions: at least 2"
}

@test "cache import --trust keeps claims as they are" {
	p=$(head -n 1 "$DATA/easy9.txt")
	echo "$p unsat winner=mine provers=mine" >"$T/forged"
	run --separate-stderr sudoku-race cache import --trust "$T/forged"
	assert_success
	refute [ -n "$(grep 'proved again' <<<"$stderr")" ]
	run sudoku-race cache export
	assert_line --index 1 --regexp "^$p unsat winner=mine ms=0.000 unique=unknown provers=mine version="
	run sudoku-race --trust "$DATA/easy9.txt"
	assert_failure 2
	assert_output --partial "--trust goes with cache import only"
}

# --- a store that must survive its machine (issue 29) ---

# small_fs SIZE: a tmpfs of SIZE of this test's own at $T/fs (MNT), or the
# test is skipped (mounting needs root, as CI has it)
small_fs() {
	mkdir -p "$T/fs"
	mount -t tmpfs -o "size=$1" tmpfs "$T/fs" 2>/dev/null ||
		skip "cannot mount a tmpfs here (needs root): $(id -un)"
	MNT=$T/fs
}

fill_fs() { # the rest of $T/fs taken
	dd if=/dev/zero of="$T/fs/fill" bs=4k status=none 2>/dev/null || true
}

@test "a full disk: no crash, the answers right, one warning that names it" {
	small_fs 1m
	fill_fs
	# a new store: LMDB's lock file cannot be had (it was a SIGBUS)
	run --separate-stderr sudoku-race --cache "$T/fs/c" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$stderr" "sudoku-race: cache: $T/fs/c: No space left on device; going on without the cache"
	# a store made before the disk filled: its answers are hits, new
	# ones cannot be written
	rm -rf "$T/fs/c" "$T/fs/fill"
	sudoku-race --cache "$T/fs/c" "$DATA/easy9.txt" >/dev/null
	fill_fs
	grep -v '^#' "$top_srcdir/puzzles/acs-16x16-45.txt" | cat "$DATA/easy9.txt" - >"$T/more"
	run --separate-stderr sudoku-race --stats --cache "$T/fs/c" "$T/more"
	assert_success
	run verify "$T/more" <(echo "$output")
	assert_success
	[[ $stderr == *"sudoku-race: cache: cannot write: No space left on device; going on without the cache"* ]]
	assert_equal "$(grep -c 'going on without the cache' <<<"$stderr")" 1
	[[ $(stat_line) == "sudoku-race: cache: 3 hits, "* ]]
}

@test "the map fits the address space there is (ulimit -v): the cache is kept" {
	skip_if_wrapped "limits the racer's address space"
	(ulimit -v 1000000 && sudoku-race --no-cache --version) >/dev/null 2>&1 ||
		skip "this build does not run in 1 GB of address space (a sanitizer's)"
	for limit in 2000000 1000000; do
		rm -rf "$C"
		run --separate-stderr bash -c "ulimit -v $limit && sudoku-race --stats '$DATA/easy9.txt'"
		assert_success
		assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 3 misses, 0 bad entries dropped, 3 written"
		run --separate-stderr bash -c "ulimit -v $limit && sudoku-race --stats '$DATA/easy9.txt'"
		assert_equal "$(stat_line)" "sudoku-race: cache: 3 hits, 0 misses, 0 bad entries dropped, 0 written"
		refute [ -n "$(grep 'going on without' <<<"$stderr")" ]
		# the limit the store keeps is not the map this run had
		run bash -c "ulimit -v $limit && sudoku-race cache stats"
		assert_line --partial "at most 1073741824 (--cache-size)"
	done
}

@test "cache stats and export on read-only media" {
	sudoku-race --workers cp "$DATA/easy9.txt" >/dev/null
	sudoku-race cache export >"$T/exported"
	if mkdir -p "$T/fs" && mount -t tmpfs -o size=4m tmpfs "$T/fs" 2>/dev/null; then
		MNT=$T/fs
		cp -r "$C" "$T/fs/c"
		mount -o remount,ro "$T/fs"
		C=$T/fs/c
	elif [ "$(id -u)" -ne 0 ]; then
		chmod 0500 "$C" && chmod 0400 "$C"/*
	else
		skip "neither a read-only mount nor a directory root cannot write"
	fi
	run --separate-stderr sudoku-race --cache "$C" cache stats
	assert_success
	assert_line --partial "entries: 3 (3 solved"
	run --separate-stderr sudoku-race --cache "$C" cache export
	assert_success
	assert_equal "$output" "$(cat "$T/exported")"
	assert_equal "$stderr" ""
}

# writer_of PID: the pid of racer PID's cache writer process, once it is
# there (2 s at most; fails without it)
writer_of() {
	local i writer
	for i in $(seq 1 200); do
		writer=$(ps -e -o pid=,ppid=,comm= |
			awk -v racer="$1" '$2 == racer && $3 == "sudoku-cache-wr" { print $1; exit }')
		if [ -n "$writer" ]; then
			echo "$writer"
			return 0
		fi
		sleep 0.01
	done
	return 1
}

# race_writer_stopped COUNT SEED: a race of COUNT easy puzzles in the
# background (answers in $T/out, messages in $T/err), its store's writer
# stopped: sets racer and writer, the caller's locals.
race_writer_stopped() {
	"$GENERATE" --box=3 --keep=0.6 --count="$1" --seed="$2" | grep -v '^#' >"$T/p"
	sudoku-race --stats --workers cp "$T/p" >"$T/out" 2>"$T/err" &
	racer=$!
	writer=$(writer_of "$racer")
	kill -STOP "$writer"
}

@test "a writer that falls behind: the input waits for it, every answer is kept, memory flat" {
	skip_if_wrapped "stops the racer's writer process by its pid"
	local racer writer hwm
	race_writer_stopped 100000 11
	sleep 1.5
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$racer/status")
	kill -CONT "$writer"
	wait "$racer"
	assert_equal "$(wc -l <"$T/out")" 100000
	stderr=$(cat "$T/err")
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 100000 misses, 0 bad entries dropped, 100000 written"
	grep -q "sudoku-race: cache: the input paused [0-9]* ms for the store's writer to catch up" "$T/err"
	# a sanitizer's own memory is not the racer's
	if ! ldd "$(type -P sudoku-race)" | grep -q -e libasan -e libtsan; then
		echo "the racer's peak: $hwm kB"
		[ "$hwm" -lt 65536 ]
	fi
}

@test "a writer that takes nothing: the run is not stopped by it; its writes are dropped and counted" {
	skip_if_wrapped "stops the racer's writer process by its pid"
	local racer writer i
	# past the racer's backlog of writes (8 MB, some 110 bytes a write)
	race_writer_stopped 100000 12
	# every answer comes while the writer is stopped
	for i in $(seq 1 600); do
		[ "$(wc -l <"$T/out")" -eq 100000 ] && break
		sleep 0.05
	done
	kill -CONT "$writer"
	wait "$racer"
	assert_equal "$(wc -l <"$T/out")" 100000
	grep -q "sudoku-race: cache: [0-9]* writes dropped: the store's writer fell behind" "$T/err"
}

@test "--cache-required: a store that cannot be opened is an error at the start, exit 2, no answer" {
	mkdir -p "$XDG_CACHE_HOME"
	echo "a file" >"$C"
	run --separate-stderr sudoku-race --cache-required "$DATA/easy9.txt"
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "sudoku-race: cache: $C is not a directory (--cache-required)"
	rm "$C"
	run --separate-stderr sudoku-race --cache-required --stats "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 3 misses, 0 bad entries dropped, 3 written"
	run --separate-stderr sudoku-race --cache-required --no-cache "$DATA/easy9.txt"
	assert_failure 2
	[[ $stderr == "sudoku-race: --cache-required and --no-cache do not go together"* ]]
}

@test "a URL of another scheme than redis:// is refused, never taken for a directory" {
	mkdir "$T/here"
	cd "$T/here"
	for url in rediss://127.0.0.1:16379 REDISS://host http://host/x unix:///run/redis.sock file:///tmp/c \
		redis+unix://x s3://bucket; do
		scheme=${url%%://*}
		run --separate-stderr sudoku-race --cache "$url" "$DATA/easy9.txt"
		assert_failure 2
		assert_output ""
		[[ $stderr == "sudoku-race: --cache: '$url': the scheme '$scheme' is not supported: a cache is a directory or a redis:// URL"* ]]
		SUDOKU_RACE_CACHE=$url run --separate-stderr sudoku-race "$DATA/easy9.txt"
		assert_failure 2
		[[ $stderr == "sudoku-race: SUDOKU_RACE_CACHE: '$url': the scheme '$scheme' is not supported"* ]]
		run --separate-stderr sudoku-race --cache "$url" cache stats
		assert_failure 2
	done
	run --separate-stderr sudoku-race --cache rediss://host "$DATA/easy9.txt"
	[[ $stderr == *"redis:// URL (for TLS, a tunnel: see docs/cache.md)"* ]]
	# a password is not shown
	run --separate-stderr sudoku-race --cache rediss://:secret@host "$DATA/easy9.txt"
	assert_failure 2
	[[ $stderr == "sudoku-race: --cache: 'rediss://:***@host': "* ]]
	# nothing was made here, nor in the default place
	assert_equal "$(ls -A "$T/here")" ""
	[ ! -e "$XDG_CACHE_HOME" ]
	# a directory whose name looks like one, given as a path
	run --separate-stderr sudoku-race --cache "./rediss://host" "$DATA/easy9.txt"
	assert_success
	[ -f "$T/here/rediss:/host/data.mdb" ]
}
