#!/usr/bin/env bats
# sudoku-gpu's real kernels on this machine's GPU (make check-gpu; also in
# make check). Every test skips itself when there is no CUDA device.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	local hello
	hello=$(sudoku-gpu --protocol </dev/null | head -n 1)
	export HELLO="$hello"
}

setup() {
	leak_setup
	[[ $HELLO == *" device=gpu "* ]] || skip "no CUDA device here"
	MULTI="8.........95.......76.........426798...571243...893165......916....3.487....1.532"
	UNSAT="...679.3....3..795.79..4.1.623..715989425136....96382...189657323.74..817..13.946"
}

solves() {
	local file=$1
	shift
	run sudoku-gpu --time-limit 120 "$@" "$file"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$file" "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line --regexp "^$(grep -cv '^#' "$file") ok, 0 none, 0 wrong$"
}

@test "device: hello names the GPU" {
	echo "$HELLO"
	# the default method (auto) takes every size: PDLX beyond 16x16
	[[ $HELLO =~ ^hello\ gpu\ .*\ sizes=2-8\ device=gpu\ detail=[^\ ]+ ]]
	run bash -c "sudoku-gpu --method=opbf --protocol </dev/null"
	assert_line --index 0 --regexp " sizes=2-5 device=gpu "
}

@test "device: each method solves 4x4, 9x9, 16x16 and 25x25" {
	for m in spbf opbf pdlx; do
		for f in 4x4.txt gpu-9x9.txt 16x16.txt 25x25.txt; do
			solves "$DATA/$f" --method=$m
			solves "$DATA/$f" --method=$m --expand=1
		done
	done
	for m in spbf pdlx; do
		solves "$DATA/gpu-36x36.txt" --method=$m --expand=2
		solves "$DATA/gpu-64x64.txt" --method=$m --expand=2
	done
	# not the paper's: CP up to 9x9, CPW up to 16x16
	for m in cp cpw; do
		for f in 4x4.txt gpu-9x9.txt cp9-unique.txt; do
			solves "$DATA/$f" --method=$m
		done
	done
	solves "$DATA/16x16.txt" --method=cpw
	solves "$DATA/16x16-hex.txt" --method=cpw
	solves "$DATA/cp9-unique.txt" --method=cpw --split=3
	solves "$DATA/16x16.txt" --method=cpw --split=1
	# 32 warps a block: past 48 KB of shared memory
	solves "$DATA/cp9-unique.txt" --method=cpw --threads=1024
}

@test "device: the suite's 17-clue puzzles (up to 1.8e9 brute-force placements)" {
	# SPBF's thousands of trees take them; OPBF's tens of blocks, and PDLX
	# in Algorithm 3's column order, take minutes over the worst of them,
	# so those two run Knuth's column rule and sudoku-bf's puzzles
	solves "$DATA/easy9.txt" --method=spbf
	solves "$DATA/easy9.txt" --method=pdlx --dlx-column=min
	solves "$top_srcdir/tests/conformance/sudoku-bf.data/easy9.txt" --method=opbf
	solves "$top_srcdir/tests/conformance/sudoku-bf.data/easy9.txt" --method=pdlx
}

@test "device: counts and node counts match the emulation (same code, whole trees)" {
	for m in spbf opbf pdlx cp cpw; do
		for s in 1 64; do
			dev=$(echo "solve b $MULTI count=100000" | sudoku-gpu --method=$m --expand=$s --protocol | tail -n 1)
			emu=$(echo "solve b $MULTI count=100000" | sudoku-gpu --emulate --method=$m --expand=$s --protocol | tail -n 1)
			echo "$m s=$s: device: $dev; emulated: $emu"
			[[ $dev == "count b 872 "* ]]
			# the same count and nodes; the first solution is whichever
			# tree gets there first, on the device a race among trees
			[ "$(cut -d' ' -f3 <<<"$dev") $(grep -o 'nodes=[0-9]*' <<<"$dev")" = \
				"$(cut -d' ' -f3 <<<"$emu") $(grep -o 'nodes=[0-9]*' <<<"$emu")" ]
		done
		run sudoku-gpu --method=$m --count <<<"$UNSAT"
		assert_failure 1
		assert_output "# unsat"
	done
	# CPW split: the pieces add up to the whole tree, however the warps race
	for s in 1 64; do
		dev=$(echo "solve b $MULTI count=100000" | sudoku-gpu --method=cpw --split=2 --expand=$s --protocol | tail -n 1)
		emu=$(echo "solve b $MULTI count=100000" | sudoku-gpu --emulate --method=cpw --expand=$s --protocol | tail -n 1)
		echo "cpw --split=2 s=$s: device: $dev; emulated: $emu"
		[[ $dev == "count b 872 "* ]]
		[ "$(grep -o 'nodes=[0-9]*' <<<"$dev")" = "$(grep -o 'nodes=[0-9]*' <<<"$emu")" ]
	done
}

@test "device: a batch of 400 puzzles in one launch" {
	for i in $(seq 1 100); do cat "$DATA/gpu-9x9.txt"; done >"$BATS_TEST_TMPDIR/in"
	for m in spbf opbf pdlx cp cpw; do
		solves "$BATS_TEST_TMPDIR/in" --method=$m --batch=400
	done
}

@test "device: the pipeline, two and four lanes at once: many batches, sudoku-cp's answers in order" {
	for i in $(seq 1 300); do
		cat "$DATA/gpu-9x9.txt" "$DATA/easy9.txt" "$DATA/cp9-unique.txt"
		echo "not a puzzle"
	done >"$BATS_TEST_TMPDIR/in"
	sudoku-cp "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/expected" || true
	for b in 97 1000 32768; do
		run sudoku-gpu --batch=$b "$BATS_TEST_TMPDIR/in"
		assert_failure 1
		assert_output "$(cat "$BATS_TEST_TMPDIR/expected")"
	done
	run sudoku-gpu --lanes=4 --batch=97 "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	assert_output "$(cat "$BATS_TEST_TMPDIR/expected")"
}

@test "device: --timing's phases are the device's, within the launch" {
	run --separate-stderr sudoku-gpu --method=cpw --batch=400 --timing "$DATA/gpu-9x9.txt"
	assert_success
	echo "$stderr"
	[[ $stderr =~ \ launch_ms=([0-9.]+)\ copy_in_ms=([0-9.]+)\ kernel_ms=([0-9.]+)\ copy_out_ms=([0-9.]+) ]]
	awk -v l="${BASH_REMATCH[1]}" -v i="${BASH_REMATCH[2]}" -v k="${BASH_REMATCH[3]}" -v o="${BASH_REMATCH[4]}" \
		'BEGIN { exit !(i > 0 && k > 0 && o > 0 && i + k + o <= l) }'
}

@test "device: cancel stops a running kernel at once" {
	for m in spbf opbf pdlx; do
		start_session sudoku-gpu --method=$m --protocol
		expect_line '^hello '
		send "solve h $(cat "$DATA/hard25.txt") progress_ms=50"
		expect_line '^progress h ' 10
		cancel_within h 500
		send "solve e $(head -n 1 "$DATA/gpu-9x9.txt")"
		expect_line '^solution e '
		end_session
	done
	# CP and CPW: counting the solutions of an empty 9x9 does not end
	for m in cp cpw; do
		start_session sudoku-gpu --method=$m --protocol
		expect_line '^hello '
		send "solve h $(printf '%81s' '' | tr ' ' .) count=1000000000000 progress_ms=50"
		expect_line '^progress h ' 10
		cancel_within h 500
		end_session
	done
}
