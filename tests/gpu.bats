#!/usr/bin/env bats
# sudoku-gpu beyond the conformance suite: no device, the methods
# emulated on the CPU (the kernels' own per-tree code), the expand size,
# batches, counting and cancel. The real kernels: tests/gpu-device.bats.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	G="sudoku-gpu --emulate"
	UNSAT="...679.3....3..795.79..4.1.623..715989425136....96382...189657323.74..817..13.946"
	MULTI="8.........95.......76.........426798...571243...893165......916....3.487....1.532"
	EMPTY9=$(printf '%81s' '' | tr ' ' .)
}

# solves FILE [OPTIONS...]: runs the emulated worker on FILE and checks every
# answer with the project's own verification.
solves() {
	local file=$1
	shift
	run $G "$@" "$file"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$file" "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line --regexp "^$(grep -cv '^#' "$file") ok, 0 none, 0 wrong$"
}

@test "--help names the methods and the grids each takes" {
	run sudoku-gpu --help
	assert_success
	assert_output --partial "--method=spbf|opbf|pdlx|cp|cpw|auto"
	assert_output --partial "(default auto)"
	assert_output --partial "--timing"
	assert_output --partial "opbf: a thread per cell of a tree, boxes 2x2 to 5x5;"
	assert_output --partial "cpw: cp's search by a warp per tree, boxes 2x2 to 4x4"
	assert_output --partial "--expand=N"
	assert_output --partial "--threads=N"
	assert_output --partial "--[no-]emulate"
	assert_output --partial "--batch=N"
}

@test "no device: hello says device=none with the reason" {
	run bash -c "CUDA_VISIBLE_DEVICES= sudoku-gpu --protocol </dev/null"
	assert_success
	assert_line --index 0 --regexp "^hello gpu [0-9.]+ proto=1 kind=complete sizes=2-8 device=none detail=[^ ]*--emulate[^ ]* batch=[0-9]+ bulk=1$"
}

@test "no device: filter mode says so and exits 2, nothing on stdout" {
	run --separate-stderr bash -c "CUDA_VISIBLE_DEVICES= sudoku-gpu '$DATA/4x4.txt'"
	assert_failure 2
	assert_equal "$output" ""
	[[ $stderr == "sudoku-gpu: no usable device: no CUDA device"* ]]
}

@test "--emulate: hello says device=cpu; OPBF takes up to 25x25, the others up to 64x64" {
	for m in spbf pdlx opbf; do
		run bash -c "sudoku-gpu --emulate --method=$m --protocol </dev/null"
		assert_success
		if [ $m = opbf ]; then sizes=2-5; else sizes=2-8; fi
		assert_line --index 0 --regexp "^hello gpu [0-9.]+ proto=1 kind=complete sizes=$sizes device=cpu detail=emulated"
	done
}

@test "usage errors: --threads with OPBF, --column without PDLX, --split without CPW, a bad method" {
	run --separate-stderr $G --method=opbf --threads=32 "$DATA/4x4.txt"
	assert_failure 2
	[[ $stderr == *"--threads: OPBF's blocks are N×N threads"* ]]
	run --separate-stderr $G --method=spbf --dlx-column=min "$DATA/4x4.txt"
	assert_failure 2
	[[ $stderr == *"--column is for --method=pdlx"* ]]
	run --separate-stderr $G --method=cuda "$DATA/4x4.txt"
	assert_failure 2
	[[ $stderr == *"'cuda' is not one of spbf|opbf|pdlx"* ]]
	run --separate-stderr $G --method=cp --split=100 "$DATA/4x4.txt"
	assert_failure 2
	[[ $stderr == *"--split is for --method=cpw"* ]]
}

@test "the default method fits the grid: CPW up to 16x16 (a 17-clue puzzle at once), PDLX beyond" {
	head -n 1 "$DATA/easy9.txt" >"$BATS_TEST_TMPDIR/in"
	run $G "$BATS_TEST_TMPDIR/in"
	assert_success
	assert_output "$(sudoku-cp "$BATS_TEST_TMPDIR/in")"
	solves "$DATA/16x16.txt"
	solves "$DATA/25x25.txt"
	solves "$DATA/gpu-36x36.txt" --expand=2
	run bash -c "$G --protocol </dev/null"
	assert_line --index 0 --regexp "^hello gpu [0-9.]+ proto=1 kind=complete sizes=2-8 device=cpu "
}

@test "a search in brute force's order that runs long says so on stderr" {
	head -n 1 "$DATA/easy9.txt" >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr $G --method=opbf --time-limit=6 "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	assert_output "# timeout after 6 s"
	[[ $stderr == *"line 1: OPBF emulated has searched for 5 s: it branches in brute force's order"* ]]
	[[ $stderr == *"--method=cpw (or auto)"* ]]
}

@test "SPBF emulated: 9x9 (expand sizes 1, 16, default) and 16x16" {
	solves "$DATA/gpu-9x9.txt" --method=spbf --expand=1
	solves "$DATA/gpu-9x9.txt" --method=spbf --expand=16 --threads=16
	solves "$DATA/gpu-9x9.txt" --method=spbf
	solves "$DATA/16x16.txt" --method=spbf --expand=1
	solves "$DATA/16x16.txt" --method=spbf
}

@test "OPBF emulated: 9x9 (expand sizes 1, 16, default) and 16x16" {
	solves "$DATA/gpu-9x9.txt" --method=opbf --expand=1
	solves "$DATA/gpu-9x9.txt" --method=opbf --expand=16
	solves "$DATA/gpu-9x9.txt" --method=opbf
	solves "$DATA/16x16.txt" --method=opbf --expand=1
	solves "$DATA/16x16.txt" --method=opbf
}

@test "PDLX emulated: 9x9 (expand sizes 1, 16, default; both column rules) and 16x16" {
	solves "$DATA/gpu-9x9.txt" --method=pdlx --expand=1
	solves "$DATA/gpu-9x9.txt" --method=pdlx --expand=16 --threads=32
	solves "$DATA/gpu-9x9.txt" --method=pdlx
	solves "$DATA/gpu-9x9.txt" --method=pdlx --dlx-column=min --expand=1
	solves "$DATA/16x16.txt" --method=pdlx --expand=1
	solves "$DATA/16x16.txt" --method=pdlx --dlx-column=min
}

@test "every method: 4x4 and 25x25; SPBF and PDLX: 36x36 and 64x64; OPBF refuses 36x36" {
	for m in spbf opbf pdlx; do
		solves "$DATA/4x4.txt" --method=$m --expand=1
		solves "$DATA/25x25.txt" --method=$m --expand=1
	done
	for m in spbf pdlx; do
		solves "$DATA/gpu-36x36.txt" --method=$m --expand=2
		solves "$DATA/gpu-64x64.txt" --method=$m --expand=2
	done
	run $G --method=opbf "$DATA/gpu-36x36.txt"
	assert_failure 1
	assert_output --regexp "^# unsupported: .*: line 1: gpu takes box sizes 2 to 5, not 36x36$"
}

# propagation_method METHOD MAX_BOX TOO_BIG: what CP and CPW share: counting
# at several expand sizes, unsat, the sizes in hello, and the first size
# refused
propagation_method() {
	local m=$1 max=$2 too_big=$3
	for s in 1 7 500; do
		run $G --method=$m --expand=$s --count=100000 <<<"$MULTI"
		assert_failure 1
		assert_output "# multiple solutions: 872"
		run $G --method=$m --expand=$s <<<"$UNSAT"
		assert_failure 1
		assert_output "# unsat"
	done
	run $G --method=$m --count=5 <<<"$MULTI"
	assert_output "# multiple solutions: at least 5"
	run bash -c "$G --method=$m --protocol </dev/null | head -n 1"
	assert_output --regexp " sizes=2-$max device=cpu "
	run $G --method=$m "$DATA/$too_big.txt"
	assert_failure 1
	assert_output --regexp "^# unsupported: .*: line 1: gpu takes box sizes 2 to $max, not $too_big$"
}

@test "CP (not the paper's): 4x4, 9x9, the 17-clue puzzles, counting, unsat; refuses 16x16" {
	solves "$DATA/4x4.txt" --method=cp
	solves "$DATA/gpu-9x9.txt" --method=cp
	solves "$DATA/easy9.txt" --method=cp
	solves "$DATA/easy9.txt" --method=cp --expand=50 --threads=32
	propagation_method cp 3 16x16
}

@test "CPW (CP by a warp): 4x4 to 16x16, counting, unsat; refuses 25x25" {
	solves "$DATA/4x4.txt" --method=cpw
	solves "$DATA/gpu-9x9.txt" --method=cpw
	solves "$DATA/cp9-unique.txt" --method=cpw
	solves "$DATA/16x16.txt" --method=cpw
	solves "$DATA/16x16-hex.txt" --method=cpw
	solves "$DATA/easy9.txt" --method=cpw --expand=50 --threads=40
	propagation_method cpw 4 25x25
}

@test "CPW searches CP's tree, split or not: the same counts and node counts on every puzzle" {
	# the same branches in the same order; only who does the propagation
	# differs. Split (by default after 250 passes), the pieces of a tree
	# are its unexplored part exactly: over whole trees (counting past their
	# solutions), the same again
	awk '!/^#/ && NF { print "solve p" NR " " $1 " count=100000" }' "$DATA/cp9-unique.txt" "$DATA/cp9-count.txt" \
		>"$BATS_TEST_TMPDIR/in"
	for m in cp "cpw --split=0" cpw "cpw --split=1" "cpw --split=6"; do
		$G --method=$m --protocol <"$BATS_TEST_TMPDIR/in" |
			awk '$1 == "count" { for (i = 3; i <= NF; i++) if ($i ~ /^nodes=/) print $2, $3, $i }' |
			sort >"$BATS_TEST_TMPDIR/${m//[ =-]/}"
	done
	run awk '{ split($3, n, "="); if (n[2] > 0) searched++ } END { print NR, (searched > 40) }' "$BATS_TEST_TMPDIR/cpw"
	assert_output "$(cat "$DATA/cp9-unique.txt" "$DATA/cp9-count.txt" | grep -cv '^#') 1"
	for m in cpwsplit0 cpw cpwsplit1 cpwsplit6; do
		run diff "$BATS_TEST_TMPDIR/cp" "$BATS_TEST_TMPDIR/$m"
		assert_success
	done
}

@test "CPW --split: more launches, the same answers, counts and unsat" {
	local n
	n=$(grep -cv '^#' "$DATA/cp9-unique.txt")
	run --separate-stderr $G --method=cpw --split=3 --timing --progress "$DATA/cp9-unique.txt"
	assert_success
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
	run verify "$DATA/cp9-unique.txt" "$BATS_TEST_TMPDIR/out"
	assert_line --regexp "^$n ok, 0 none, 0 wrong$"
	# the first launch has a tree per puzzle, the next ones the pieces
	[ "$(grep -c "launch puzzles=$n " <<<"$stderr")" -ge 3 ]
	[[ $stderr == *"launch puzzles=$n trees=$n "* ]]
	# emulated, the kernel is the whole launch and nothing is copied
	[[ $stderr =~ \ launch_ms=([0-9.]+)\ copy_in_ms=0\.000\ kernel_ms=([0-9.]+)\ copy_out_ms=0\.000 ]]
	[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
	solves "$DATA/16x16.txt" --method=cpw --split=1
	for s in 1 40; do
		run $G --method=cpw --split=2 --expand=$s --count=100000 <<<"$MULTI"
		assert_failure 1
		assert_output "# multiple solutions: 872"
		run $G --method=cpw --split=1 --expand=$s --count <<<"$UNSAT"
		assert_failure 1
		assert_output "# unsat"
	done
}

@test "the expand size: from 1 to far past the tree, the same unique answers" {
	for m in spbf opbf pdlx cp cpw; do
		for s in 1 3 64 100000; do
			run $G --method=$m --expand=$s "$DATA/gpu-9x9.txt"
			assert_success
			assert_equal "$output" "$(sudoku-cp "$DATA/gpu-9x9.txt")"
		done
	done
	# 4x4 is solved during the CPU's expansion when s is large (§4.2)
	run $G --expand=1000 "$DATA/4x4.txt"
	assert_success
	assert_output "1324423124133142"
	run $G --expand=0 "$DATA/4x4.txt"
	assert_success
	run $G --expand=-1 "$DATA/4x4.txt"
	assert_failure 2
}

@test "counting: every method and expand size finds the 872 solutions, and proves unsat" {
	for m in spbf opbf pdlx; do
		for s in 1 7 500; do
			run $G --method=$m --expand=$s --count=100000 <<<"$MULTI"
			assert_failure 1
			assert_output "# multiple solutions: 872"
			run $G --method=$m --expand=$s --count <<<"$UNSAT"
			assert_failure 1
			assert_output "# unsat"
			run $G --method=$m --expand=$s <<<"$UNSAT"
			assert_failure 1
			assert_output "# unsat"
		done
		run $G --method=$m --count=5 <<<"$MULTI"
		assert_output "# multiple solutions: at least 5"
	done
	run $G --method=pdlx --dlx-column=min --count=100000 <<<"$MULTI"
	assert_output "# multiple solutions: 872"
}

@test "the three methods search the same tree: equal node counts over whole trees" {
	for s in 1 64; do
		for m in spbf opbf pdlx; do
			run bash -c "echo 'solve b $MULTI count=100000' | $G --method=$m --expand=$s --protocol | tail -n 1"
			assert_success
			[[ $output == "count b 872 "* ]]
			n=${output#* nodes=}
			n=${n%% *}
			nodes[$s]=${nodes[$s]:-$n}
			echo "$m s=$s: $n nodes"
			assert_equal "$n" "${nodes[$s]}"
		done
	done
}

@test "batch: mixed sizes and bad lines in one batch, answers in input order" {
	{
		cat "$DATA/gpu-9x9.txt"
		echo "not a puzzle"
		cat "$DATA/16x16.txt" "$DATA/4x4.txt"
		echo "$UNSAT"
		head -n 1 "$DATA/gpu-9x9.txt" | sed 's/^../44/'
		cat "$DATA/25x25.txt" "$DATA/gpu-9x9.txt"
	} >"$BATS_TEST_TMPDIR/in"
	for m in spbf opbf pdlx; do
		for b in 1 3 64; do
			run $G --method=$m --batch=$b --expand=4 "$BATS_TEST_TMPDIR/in"
			assert_failure 1
			assert_equal "${#lines[@]}" 14
			[[ ${lines[4]} == "# invalid: $BATS_TEST_TMPDIR/in: line 5: "* ]]
			assert_equal "${lines[7]}" "# unsat"
			[[ ${lines[8]} == "# unsat: $BATS_TEST_TMPDIR/in: line 9: value 4 twice in row 1"* ]]
			printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/out"
			run verify "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
			assert_success
			assert_line "11 ok, 3 none, 0 wrong"
		done
	done
}

@test "batch: the default expand size shares the trees among the batch's puzzles" {
	for i in 1 2 3 4 5 6 7 8; do cat "$DATA/gpu-9x9.txt"; done >"$BATS_TEST_TMPDIR/in"
	solves "$BATS_TEST_TMPDIR/in" --method=opbf --batch=32
	solves "$BATS_TEST_TMPDIR/in" --method=spbf --batch=32
}

@test "batch: a full batch of 8192 puzzles in filter mode (its results are not on the stack)" {
	for i in $(seq 1 2100); do cat "$DATA/gpu-9x9.txt"; done >"$BATS_TEST_TMPDIR/in"
	solves "$BATS_TEST_TMPDIR/in" --method=spbf --batch=8192 --expand=1
}

@test "protocol: queued solves go as one batch, answered in order, with counts" {
	mapfile -t p <"$DATA/gpu-9x9.txt"
	run bash -c "printf 'solve a %s\nsolve b %s count=5\nsolve c %s\nsolve d %s\nsolve e %s\n' \
		'${p[0]}' '$MULTI' '${p[1]}' '$UNSAT' '${p[3]}' | $G --method=pdlx --batch=8 --protocol"
	assert_success
	assert_line --index 0 --regexp "^hello gpu .* batch=8 bulk=1$"
	assert_line --index 1 --regexp "^solution a $(sudoku-cp <<<"${p[0]}") nodes=[0-9]+ ms="
	assert_line --index 2 --regexp "^count b 5 "
	assert_line --index 3 --regexp "^solution c $(sudoku-cp <<<"${p[1]}") "
	assert_line --index 4 --regexp "^unsat d "
	assert_line --index 5 --regexp "^solution e $(sudoku-cp <<<"${p[3]}") "
}

@test "protocol: two batches solved at once, answered in the order asked" {
	mapfile -t p <"$DATA/gpu-9x9.txt"
	{
		# the first batch runs 0.5 s; those after it are done long before
		echo "solve h $(cat "$DATA/hard25.txt") limit_ms=500"
		for i in $(seq 1 12); do echo "solve e$i ${p[i % 4]}"; done
		echo "solve bad 123"
		echo "solve x ${p[0]}"
	} >"$BATS_TEST_TMPDIR/in"
	run bash -c "$G --method=pdlx --batch=3 --protocol <'$BATS_TEST_TMPDIR/in'"
	assert_success
	assert_line --index 1 --regexp "^gaveup h timeout "
	assert_line --index 2 --regexp "^solution e1 $(sudoku-cp <<<"${p[1]}") "
	run bash -c "printf '%s\n' \"\$0\" | sed -n '2,\$p' | cut -d' ' -f2 | paste -sd' '" "$output"
	assert_output "h e1 e2 e3 e4 e5 e6 e7 e8 e9 e10 e11 e12 bad x"
}

@test "--lanes: 1, 3 and 8 batches at once, in filter and protocol mode; answers in order; 9 is refused" {
	local n
	grep -v '^#' "$DATA/gpu-9x9.txt" >"$BATS_TEST_TMPDIR/one"
	for i in $(seq 1 30); do cat "$BATS_TEST_TMPDIR/one"; done >"$BATS_TEST_TMPDIR/in"
	n=$(wc -l <"$BATS_TEST_TMPDIR/in")
	sudoku-cp "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/expected"
	for l in 1 3 8; do
		run $G --lanes=$l --batch=7 "$BATS_TEST_TMPDIR/in"
		assert_success
		assert_output "$(cat "$BATS_TEST_TMPDIR/expected")"
		run bash -c "awk '{print \"solve p\" NR, \$0}' '$BATS_TEST_TMPDIR/in' | $G --lanes=$l --batch=5 --protocol"
		assert_success
		run bash -c "printf '%s\n' \"\$0\" | sed -n '2,\$p' | awk '\$2 != \"p\" NR || \$1 != \"solution\"' | wc -l" "$output"
		assert_output 0
	done
	assert_equal "$n" 120
	run --separate-stderr $G --lanes=9 "$BATS_TEST_TMPDIR/in"
	assert_failure 2
	[[ $stderr == *"--lanes: 9 is out of range (1 to 8)"* ]]
}

@test "protocol: cancel of an emulated search, each method, acknowledged at once" {
	for m in spbf opbf pdlx; do
		start_session sudoku-gpu --emulate --method=$m --protocol
		expect_line '^hello '
		send "solve h $(cat "$DATA/hard25.txt") progress_ms=20"
		expect_line '^progress h ' 5
		[[ $line =~ ^progress\ h\ (trees|expanding)=[0-9]+/[0-9]+\ nodes=[0-9]+$ ]]
		# the emulation polls between slices of a 25x25 search: a few
		# hundred ms on an idle machine, over a second under the
		# sanitizers beside a busy one (a search that ignored the cancel
		# never ends)
		cancel_within h 3000
		send "ping after"
		expect_line '^pong after$'
		end_session
	done
	# CP and CPW take no 25x25: counting the solutions of an empty 9x9 (some
	# 6.7e21) is a search that does not end either
	for m in cp cpw; do
		start_session sudoku-gpu --emulate --method=$m --protocol
		expect_line '^hello '
		send "solve e $EMPTY9 count=1000000000000 progress_ms=20"
		expect_line '^progress e ' 5
		cancel_within e 3000
		end_session
	done
}

@test "protocol: cancel of every puzzle of a running batch stops it" {
	start_session sudoku-gpu --emulate --method=spbf --protocol --batch=4
	expect_line '^hello '
	send "solve a $(cat "$DATA/hard25.txt") progress_ms=20" "solve b $(cat "$DATA/hard25.txt")"
	# running (the progress of a, or of the batch a heads), not a fixed sleep
	expect_line '^progress a ' 10
	send "cancel a" "cancel b"
	# b may still be queued (acknowledged at once) or share a's launch
	expect_line '^cancelled [ab]$' 2
	first=$line
	expect_line '^cancelled [ab]$' 2
	[ "$line" != "$first" ]
	send "solve c $(head -n 1 "$DATA/gpu-9x9.txt")"
	expect_line '^solution c '
}

@test "protocol: a batch's progress speaks for a request that asked for it and is not cancelled" {
	start_session sudoku-gpu --emulate --method=spbf --protocol --batch=4
	expect_line '^hello '
	send "solve x $(cat "$DATA/hard25.txt") progress_ms=20"
	expect_line '^progress x ' 10
	# a asks for none, b does: the batch of a and b reports as b
	send "solve a $(cat "$DATA/hard25.txt")" "solve b $(cat "$DATA/hard25.txt") progress_ms=20" "cancel x"
	expect_line '^cancelled x$' 2
	expect_line '^progress b ' 10
	send "cancel b"
	expect_line '^cancelled b$' 2
	send "cancel a"
	expect_line '^cancelled a$' 2
	# both ask: a's, until a's cancel is acknowledged; then b's, never a's
	send "solve c $(cat "$DATA/hard25.txt") progress_ms=20" "solve d $(cat "$DATA/hard25.txt") progress_ms=20"
	expect_line '^progress c ' 10
	send "cancel c"
	expect_line '^cancelled c$' 2
	expect_line '^progress d ' 10
	for l in "${seen[@]}"; do [[ $l != "progress c "* ]]; done
	send "cancel d"
	expect_line '^cancelled d$' 2
	for l in "${seen[@]}"; do [[ $l != "progress c "* ]]; done
}

# a_and_b_running OPTIONS...: an emulated worker in protocol mode that
# searches the 25x25 puzzles a and b as one batch. x keeps the worker busy
# (its progress says so) while a and b queue up; cancelling x lets it take
# a and b at once. That batch's start is still a sleep: nothing but its
# progress would say so, and neither a nor b asks for any (the tests look
# at what follows a's cancel). A batch slower to start leaves a and b
# queued, whose cancels are acknowledged at once as well.
a_and_b_running() {
	start_session sudoku-gpu --emulate "$@" --protocol --batch=4
	expect_line '^hello '
	send "solve x $(cat "$DATA/hard25.txt") progress_ms=20"
	expect_line '^progress x ' 10
	send "solve a $(cat "$DATA/hard25.txt")" "solve b $(cat "$DATA/hard25.txt")" "cancel x"
	expect_line '^cancelled x$' 2
	sleep 0.3
}

@test "protocol: cancel of one puzzle of a running batch is acknowledged at once, once" {
	a_and_b_running --method=spbf
	send "cancel a"
	expect_line '^(cancelled|solution|gaveup) a$' 1
	[[ $line == "cancelled a" ]]
	send "cancel b"
	expect_line '^cancelled b$' 2
	send "ping done"
	expect_line '^pong done$' 2
	# nothing more about a: one final message per request
	for l in "${seen[@]}"; do [[ $l != *" a"* ]]; done
}

@test "protocol: an id acknowledged as cancelled in a running batch can be sent again at once" {
	# the default method: PDLX for the 25x25 (long), CPW for the 9x9 (at
	# once); a sent again as the racer does when it takes back a puzzle
	a_and_b_running
	send "cancel a"
	expect_line '^cancelled a$' 1
	send "solve a $(head -n 1 "$DATA/easy9.txt")"
	send "cancel b"
	expect_line '^(solution|error) a ' 5
	[[ $line == "solution a "* ]]
	send "ping done"
	expect_line '^pong done$' 2
}

@test "protocol: cancel of a batch waiting for its turn to answer is acknowledged at once" {
	start_session sudoku-gpu --emulate --method=pdlx --protocol --batch=1
	expect_line '^hello '
	# q is solved beside h at once, and waits to answer after h (a sleep:
	# no message says q is solved; if it is not yet, its cancel is
	# acknowledged at once all the same)
	send "solve h $(cat "$DATA/hard25.txt")" "solve q $(head -n 1 "$DATA/gpu-9x9.txt")"
	sleep 0.3
	send "cancel q"
	expect_line '^cancelled q$' 2
	send "cancel h"
	expect_line '^cancelled h$' 2
	send "ping done"
	expect_line '^pong done$' 2
	for l in "${seen[@]}"; do [[ $l != "solution q "* ]]; done
}

@test "filter mode: a time limit ends an emulated search in time, each method" {
	for m in spbf opbf pdlx; do
		start=$(date +%s%N)
		run $G --method=$m --time-limit 0.2 "$DATA/hard25.txt"
		elapsed_ms=$((($(date +%s%N) - start) / 1000000))
		assert_failure 1
		assert_output "# timeout after 0.2 s"
		echo "$m: $elapsed_ms ms"
		[ "$elapsed_ms" -lt 3000 ]
	done
	for m in cp cpw; do
		start=$(date +%s%N)
		run $G --method=$m --time-limit 0.2 --count=1000000000000 <<<"$EMPTY9"
		elapsed_ms=$((($(date +%s%N) - start) / 1000000))
		assert_failure 1
		assert_output "# timeout after 0.2 s"
		echo "$m: $elapsed_ms ms"
		[ "$elapsed_ms" -lt 3000 ]
	done
}

@test "--progress in filter mode reports trees and nodes on stderr" {
	run --separate-stderr $G --method=pdlx --progress --progress-ms 50 --time-limit 0.4 "$DATA/hard25.txt"
	assert_failure 1
	[[ $stderr == *"sudoku-gpu: $DATA/hard25.txt: line 1: trees="*" nodes="* ||
		$stderr == *"sudoku-gpu: $DATA/hard25.txt: line 1: expanding="*" nodes="* ]]
}

# The filter's pipeline: batches cut anywhere (inside block grids too),
# parsed in parts at once, solved two at a time, written in input order.
@test "pipeline: batches and parts cut inside multi-line grids; answers as sudoku-cp's, in order" {
	local n
	n=$(grep -c . "$DATA/easy9.txt")
	for i in $(seq 1 120); do
		cat "$DATA/notation-block.txt"
		sed -n "$((i % n + 1))p" "$DATA/easy9.txt"
		echo "# a comment"
		echo "12345"
	done >"$BATS_TEST_TMPDIR/in"
	sudoku-cp "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/expected" || true
	assert_equal "$(grep -c . "$BATS_TEST_TMPDIR/expected")" 360
	for b in 1920 1100 7 1; do
		run $G --batch=$b "$BATS_TEST_TMPDIR/in"
		assert_failure 1
		assert_output "$(cat "$BATS_TEST_TMPDIR/expected")"
	done
	# standard input, and '-' among files
	run bash -c "$G --batch=100 <'$BATS_TEST_TMPDIR/in'"
	assert_output "$(sudoku-cp <"$BATS_TEST_TMPDIR/in")"
}

@test "pipeline: a grid cut short by the end of its file is invalid; the next file starts afresh" {
	head -n 6 "$DATA/notation-block.txt" >"$BATS_TEST_TMPDIR/a"
	cat "$DATA/notation-block.txt" >"$BATS_TEST_TMPDIR/b"
	run $G "$BATS_TEST_TMPDIR/a" - "$BATS_TEST_TMPDIR/b" <"$DATA/4x4.txt"
	assert_failure 1
	assert_output "$(sudoku-cp "$BATS_TEST_TMPDIR/a" - "$BATS_TEST_TMPDIR/b" <"$DATA/4x4.txt")"
	[[ ${lines[0]} == "# invalid: $BATS_TEST_TMPDIR/a: line 2: grid ended after 4 of 9 rows" ]]
}

@test "--timing: each launch, then each stage's busy time and share of the wall" {
	run --separate-stderr $G --timing --batch=2 "$DATA/gpu-9x9.txt"
	assert_success
	[[ $stderr == *"launch puzzles=2 trees="*" expand_ms="*" launch_ms="* ]]
	for stage in start read parse solve format "solve: expansion" "solve: launches"; do
		echo "$stderr" | grep -E "^sudoku-gpu: timing: $stage +[0-9]+\.[0-9]{3} s +[0-9]+\.[0-9]%$"
	done
	echo "$stderr" | grep -E "^sudoku-gpu: timing: [0-9.]+ s wall, $(grep -cv '^#' "$DATA/gpu-9x9.txt") puzzles solved"
	run --separate-stderr sudoku-cp --timing "$DATA/4x4.txt"
	assert_failure 2
	[[ $stderr == *"--timing is for workers that solve batches"* ]]
}
