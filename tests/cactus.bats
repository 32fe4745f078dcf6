#!/usr/bin/env bats
# contrib/bench/cactus: the cactus plot's results (a worker alone, the race,
# the VBS), its table, and its plot, on a few easy puzzles.

bats_require_minimum_version 1.5.0
load helpers

CACTUS="$top_srcdir/contrib/bench/cactus"

need_gnuplot() {
	command -v gnuplot >/dev/null || skip "gnuplot not found"
}

@test "from a CSV: solved counts, the VBS as the least worker time, the ratios, a PNG" {
	need_gnuplot
	cat >"$BATS_TEST_TMPDIR/in.csv" <<-'CSV'
		solver,puzzle,status,ms
		cp,1,solved,2
		cp,2,gaveup,1000
		cp,3,solved,30
		dlx,1,solved,4
		dlx,2,solved,500
		dlx,3,solved,10
		race,1,solved,3
		race,2,solved,600
		race,3,solved,12
	CSV
	run --separate-stderr "$CACTUS" --from-csv "$BATS_TEST_TMPDIR/in.csv" --limit 1 \
		-o "$BATS_TEST_TMPDIR/c.png" -c "$BATS_TEST_TMPDIR/out.csv"
	assert_success
	# VBS: 2 + 500 + 10 = 512 ms; cp: 32 solved + 1000 unsolved = 1032
	assert_line --regexp '^cp +2/3 +16\.000 +32\.0 +1032\.0 +2\.02$'
	assert_line --regexp '^dlx +3/3 +10\.000 +514\.0 +514\.0 +1\.00$'
	assert_line --regexp '^race +3/3 +12\.000 +615\.0 +615\.0 +1\.20$'
	assert_line --regexp '^vbs +3/3 +10\.000 +512\.0 +512\.0 +1\.00$'
	run grep -c '^vbs,' "$BATS_TEST_TMPDIR/out.csv"
	assert_output 3
	grep -qx 'vbs,2,solved,500' "$BATS_TEST_TMPDIR/out.csv"
	[ "$(head -c 4 "$BATS_TEST_TMPDIR/c.png" | od -An -c | tr -d ' ')" = '211PNG' ]
}

@test "a run: every worker and the race on every puzzle, answers timed, nothing left running" {
	need_gnuplot
	command -v xz >/dev/null || skip "xz not found"
	head -n 3 "$DATA/easy9.txt" >"$BATS_TEST_TMPDIR/p.txt"
	xz -c "$DATA/4x4.txt" >"$BATS_TEST_TMPDIR/four.txt.xz"
	run --separate-stderr "$CACTUS" --workers cp,dlx --limit 2 --build "$top_builddir" \
		-o "$BATS_TEST_TMPDIR/c.png" -c "$BATS_TEST_TMPDIR/out.csv" \
		"$BATS_TEST_TMPDIR/p.txt" "$BATS_TEST_TMPDIR/four.txt.xz"
	assert_success
	local n=$((3 + $(grep -cv '^#' "$DATA/4x4.txt")))
	for s in cp dlx race vbs; do
		run grep -c "^$s,[0-9]*,solved,[0-9.]*\$" "$BATS_TEST_TMPDIR/out.csv"
		assert_output "$n"
	done
	[ -s "$BATS_TEST_TMPDIR/c.png" ]
}

@test "bad input: an unreadable file, an unknown option" {
	run --separate-stderr "$CACTUS" "$BATS_TEST_TMPDIR/none.txt"
	assert_failure 2
	[[ $stderr == *"none.txt"* ]]
	run --separate-stderr "$CACTUS" --frobnicate
	assert_failure 2
	[[ $stderr == *"--frobnicate"* ]]
}
