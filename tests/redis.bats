#!/usr/bin/env bats
# sudoku-race's shared cache on Redis (--cache redis://..., cache_redis.c),
# against a real redis-server on a free port of the test's own: hits across
# racers, claims (no puzzle solved twice, a claim waited for within
# bounds), bad entries, a server down, killed or silent, passwords,
# --cache-required, SUDOKU_RACE_CACHE, bad URLs, the cache commands.
# Skipped when redis-server, redis-cli or the racer's Redis support is
# missing. Every test checks that nothing is left running.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	leak_setup
	T=$BATS_TEST_TMPDIR
	export XDG_CACHE_HOME="$T/xdg"
	unset SUDOKU_RACE_CACHE REDISCLI_AUTH
	PASS=
	command -v redis-server >/dev/null || skip "redis-server is not installed (Debian: redis-server)"
	command -v redis-cli >/dev/null || skip "redis-cli is not installed (Debian: redis-tools)"
	if sudoku-race --cache redis://127.0.0.1:1 </dev/null 2>&1 | grep -q 'without Redis support'; then
		skip "sudoku-race was built without Redis support (hiredis)"
	fi
	start_redis
}

teardown() {
	stop_alive
	stop_redis
	assert_no_leftovers
}

# redis-cli on the test's server (with its password PASS, when it has one)
rcli() {
	if [ -n "$PASS" ]; then
		REDISCLI_AUTH=$PASS redis-cli -p "$PORT" "$@"
	else
		redis-cli -p "$PORT" "$@"
	fi
}

# A redis-server of this test's own on a free port: PORT, REDIS_PID, U;
# its options: start_redis [--requirepass "$PASS"]...
start_redis() {
	local try i
	for try in 1 2 3 4 5 6 7 8; do
		PORT=$((20000 + RANDOM % 40000))
		redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
			--dir "$T" "$@" >"$T/redis.log" 2>&1 &
		REDIS_PID=$!
		for i in $(seq 1 100); do
			kill -0 "$REDIS_PID" 2>/dev/null || break # the port was taken
			# ours, not another test's server on the same port
			if rcli info server 2>/dev/null | grep -q "^process_id:$REDIS_PID"; then
				U=redis://127.0.0.1:$PORT
				return 0
			fi
			sleep 0.05
		done
		kill "$REDIS_PID" 2>/dev/null || true
		wait "$REDIS_PID" 2>/dev/null || true
	done
	fail "cannot start redis-server: $(cat "$T/redis.log")"
}

stop_redis() {
	if [ -n "${REDIS_PID:-}" ]; then
		kill -CONT "$REDIS_PID" 2>/dev/null || true
		kill "$REDIS_PID" 2>/dev/null || true
		wait "$REDIS_PID" 2>/dev/null || true
		REDIS_PID=
	fi
}

# A racer OWNER that is alive as racers are: its key set with an expiry of
# 3 s, renewed every 0.5 s (by redis-cli, ALIVE_PID) until stop_alive.
keep_alive() {
	rcli set "sudoku-race:alive:$1" 1 px 3000 >/dev/null
	redis-cli -p "$PORT" -r -1 -i 0.5 set "sudoku-race:alive:$1" 1 px 3000 </dev/null >/dev/null 2>&1 &
	ALIVE_PID=$!
}

stop_alive() {
	if [ -n "${ALIVE_PID:-}" ]; then
		kill "$ALIVE_PID" 2>/dev/null || true
		wait "$ALIVE_PID" 2>/dev/null || true
		ALIVE_PID=
	fi
}

stat_line() { # the "cache:" counts of --stats, from $stderr
	grep 'sudoku-race: cache: [0-9]* hits' <<<"$stderr"
}

redis_line() { # the Redis line of --stats, from $stderr
	grep "sudoku-race: cache: $U" <<<"$stderr"
}

# The entries' keys (not claims, not racers).
entry_keys() {
	rcli --scan --pattern 'sudoku-race:*' | grep -v -e ':claim:' -e ':alive:' || true
}

# evals_at_least N: waits (10 s at most) until the server ran N scripts:
# a racer asked for a claim.
evals_at_least() {
	local i n
	for i in $(seq 1 200); do
		n=$(rcli info commandstats | sed -n 's/^cmdstat_eval:calls=\([0-9]*\),.*/\1/p')
		[ "${n:-0}" -ge "$1" ] && return 0
		sleep 0.05
	done
	echo "the server ran ${n:-0} scripts, not $1" >&2
	return 1
}

@test "a racer's answers are hits for another racer on the same Redis" {
	run --separate-stderr sudoku-race --cache "$U" --stats --workers cp "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 3 misses, 0 bad entries dropped, 3 written"
	assert_equal "$(redis_line)" \
		"sudoku-race: cache: $U: 3 puzzles claimed (0 from racers gone), 0 waited for a claim"
	# the entries alone are left: claims released, the racer's key gone
	assert_equal "$(rcli dbsize)" 3
	assert_equal "$(entry_keys | wc -l)" 3
	[ ! -e "$XDG_CACHE_HOME" ]
	run --separate-stderr sudoku-race --cache "$U" --stats --json "$DATA/easy9.txt"
	assert_success
	assert_equal "$(stat_line)" "sudoku-race: cache: 3 hits, 0 misses, 0 bad entries dropped, 0 written"
	[[ ${lines[0]} == *'"winner":"cp"'*'"cache":true'* ]]
	# the database of the URL
	run sudoku-race --cache "$U/3" "$DATA/easy9.txt"
	assert_success
	assert_equal "$(rcli -n 3 dbsize)" 3
}

@test "two racers over one file with duplicates never solve a puzzle twice" {
	grep -v '^#' "$top_srcdir/puzzles/acs-logic-solvable.txt" | grep . >"$T/a"
	cat "$DATA/easy9.txt" >>"$T/a"
	distinct=$(sort -u "$T/a" | wc -l)
	# each half of the file holds every puzzle twice: the two racers of
	# parallel -j2 race for the same puzzles at the same time
	cat "$T/a" "$T/a" "$T/a" "$T/a" >"$T/in"
	parallel --will-cite -j2 --pipe-part --block -1 -a "$T/in" --keep-order \
		sudoku-race --workers cp --cache "$U" --json --stats >"$T/out" 2>"$T/err"
	assert_equal "$(wc -l <"$T/out")" "$(wc -l <"$T/in")"
	assert_equal "$(grep -c '"status":"solved"' "$T/out")" "$(wc -l <"$T/in")"
	# raced once each, over both racers: every other answer came from the cache
	assert_equal "$(grep -c '"cache":false' "$T/out")" "$distinct"
	assert_equal "$(entry_keys | wc -l)" "$distinct"
	# --stats of both racers: as many claimed, and won by a worker, in all
	assert_equal "$(grep -c 'puzzles claimed' "$T/err")" 2
	assert_equal "$(awk '/puzzles claimed/ { n += $4 } END { print n }' "$T/err")" "$distinct"
	assert_equal "$(awk '$1 == "cp" { n += $3 } END { print n }' "$T/err")" "$distinct"
	run verify "$T/in" <(sed 's/.*"solution":"\([^"]*\)".*/\1/' "$T/out")
	assert_success
}

# One puzzle, its entry put aside (the key in K), and a claim on it by
# "other", a racer running (keep_alive): the test's racer waits.
claimed_by_other() {
	head -n 1 "$DATA/easy9.txt" >"$T/p"
	sudoku-race --cache "$U" "$T/p" >/dev/null
	K=$(entry_keys)
	rcli rename "$K" stash >/dev/null
	rcli set "sudoku-race:claim:${K#sudoku-race:}" other >/dev/null
	keep_alive other
	rcli config resetstat >/dev/null
}

@test "a puzzle another racer has claimed waits for its entry, then is a hit" {
	claimed_by_other
	sudoku-race --cache "$U" --stats --json "$T/p" >"$T/out" 2>"$T/err" &
	pid=$!
	evals_at_least 2 # asked, and asked again
	# the other racer's answer comes: written, then its claim released
	rcli rename stash "$K" >/dev/null
	rcli del "sudoku-race:claim:${K#sudoku-race:}" >/dev/null
	wait "$pid"
	[[ $(cat "$T/out") == *'"status":"solved"'*'"cache":true'* ]]
	stderr=$(cat "$T/err")
	assert_equal "$(stat_line)" "sudoku-race: cache: 1 hits, 0 misses, 0 bad entries dropped, 0 written"
	assert_equal "$(redis_line)" \
		"sudoku-race: cache: $U: 0 puzzles claimed (0 from racers gone), 1 waited for a claim"
}

@test "a claim whose racer is gone is taken over, and the puzzle raced" {
	claimed_by_other
	sudoku-race --cache "$U" --stats --json "$T/p" >"$T/out" 2>"$T/err" &
	pid=$!
	evals_at_least 2
	stop_alive
	rcli del sudoku-race:alive:other >/dev/null # its key expired: it is gone
	wait "$pid"
	[[ $(cat "$T/out") == *'"status":"solved"'*'"cache":false'* ]]
	stderr=$(cat "$T/err")
	assert_equal "$(redis_line)" \
		"sudoku-race: cache: $U: 1 puzzles claimed (1 from racers gone), 1 waited for a claim"
	# its entry is written, and the claim released
	assert_equal "$(rcli exists "$K")" 1
	assert_equal "$(rcli exists "sudoku-race:claim:${K#sudoku-race:}")" 0
}

# --- a claim is waited for within bounds (issue 29) ---

@test "a claim whose owner's key never expires (forged) does not count: taken over at once" {
	claimed_by_other
	stop_alive
	for ttl in none long; do
		rcli del "$K" >/dev/null
		rcli set "sudoku-race:claim:${K#sudoku-race:}" other >/dev/null
		if [ $ttl = none ]; then
			rcli set sudoku-race:alive:other 1 >/dev/null # no expiry
		else
			rcli set sudoku-race:alive:other 1 ex 3600 >/dev/null # longer than a racer's 3 s
		fi
		t0=$(date +%s%N)
		run --separate-stderr sudoku-race --cache "$U" --stats --json "$T/p"
		ms=$((($(date +%s%N) - t0) / 1000000))
		assert_success
		[[ $output == *'"status":"solved"'*'"cache":false'* ]]
		assert_equal "$(redis_line)" \
			"sudoku-race: cache: $U: 1 puzzles claimed (1 from racers gone), 0 waited for a claim"
		echo "$ttl: ${ms} ms"
		[ "$ms" -lt 5000 ]
	done
}

@test "a live claim is waited for no longer than --timeout: the puzzle is a timeout, then" {
	claimed_by_other
	t0=$(date +%s%N)
	run --separate-stderr sudoku-race --cache "$U" --stats --timeout 1 --json "$T/p"
	ms=$((($(date +%s%N) - t0) / 1000000))
	assert_failure 1
	[[ $output == *'"status":"timeout","solution":null,"reason":"timeout after 1 s"'*'"cache":false'* ]]
	assert_equal "$(redis_line)" "sudoku-race: cache: $U: 0 puzzles claimed (0 from racers gone), \
1 waited for a claim (1 out of time, 0 raced after 10 s)"
	echo "${ms} ms"
	[ "$ms" -ge 1000 ] && [ "$ms" -lt 5000 ]
	# the plain answer line
	run --separate-stderr sudoku-race --cache "$U" --timeout 0.5 "$T/p"
	assert_failure 1
	assert_output "# timeout after 0.5 s"
	# the claim is still the other racer's, and no entry was written
	assert_equal "$(rcli get "sudoku-race:claim:${K#sudoku-race:}")" other
	assert_equal "$(rcli exists "$K")" 0
}

@test "a live claim is waited for 10 s at most (without --timeout); then the puzzle is raced here too" {
	claimed_by_other
	t0=$(date +%s%N)
	run --separate-stderr sudoku-race --cache "$U" --stats --json "$T/p"
	ms=$((($(date +%s%N) - t0) / 1000000))
	assert_success
	[[ $output == *'"status":"solved"'*'"cache":false'* ]]
	assert_equal "$(redis_line)" "sudoku-race: cache: $U: 0 puzzles claimed (0 from racers gone), \
1 waited for a claim (0 out of time, 1 raced after 10 s)"
	echo "${ms} ms"
	[ "$ms" -ge 10000 ] && [ "$ms" -lt 20000 ]
	# its answer is written; the claim stays the other racer's
	assert_equal "$(rcli exists "$K")" 1
	assert_equal "$(rcli get "sudoku-race:claim:${K#sudoku-race:}")" other
}

@test "a bad entry is dropped, and the puzzle raced and stored again" {
	sudoku-race --cache "$U" "$DATA/easy9.txt" >/dev/null
	# every stored solution's first cell takes its second's value: a clash
	# (format 3: the solution's cells after the names and the givens' mask,
	# two to a byte, the first in the low bits)
	for k in $(entry_keys); do
		rcli eval "local v = redis.call('GET', KEYS[1])
			local at = 20 + v:byte(17) + v:byte(18) + v:byte(19) + 11
			local second = math.floor(v:byte(at) / 16)
			redis.call('SET', KEYS[1], v:sub(1, at - 1) .. string.char(second * 17) .. v:sub(at + 1))" 1 "$k" >/dev/null
	done
	run --separate-stderr sudoku-race --cache "$U" --stats "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	for l in 1 2 3; do
		[[ $stderr == *"cache: a bad entry for $DATA/easy9.txt: line $l ("*"): dropped, the puzzle is raced"* ]]
	done
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 0 misses, 3 bad entries dropped, 3 written"
	run --separate-stderr sudoku-race --cache "$U" --stats "$DATA/easy9.txt"
	assert_equal "$(stat_line)" "sudoku-race: cache: 3 hits, 0 misses, 0 bad entries dropped, 0 written"
	# garbage in place of an entry
	rcli set "$(entry_keys | head -n 1)" garbage >/dev/null
	run --separate-stderr sudoku-race --cache "$U" --stats "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	[[ $stderr == *"(a value of 7 bytes): dropped, the puzzle is raced"* ]]
}

@test "a server that is down: one warning, and every answer" {
	stop_redis
	run --separate-stderr sudoku-race --cache "$U" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$stderr" \
		"sudoku-race: cache: $U: cannot connect: Connection refused; going on without the cache"
}

@test "a server that refuses to write (full): one warning, and every answer" {
	rcli config set maxmemory 1 >/dev/null # noeviction: every write is refused
	run --separate-stderr sudoku-race --cache "$U" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$stderr" "sudoku-race: cache: $U: the server said: OOM command not allowed when used memory > 'maxmemory'.; going on without the cache"
}

# The racer reads puzzles from a FIFO (fd 7), answers into $T/out:
# started_on_fifo, then feed LINES..., then ended.
started_on_fifo() {
	mkfifo "$T/in"
	sudoku-race --cache "$U" --workers cp "$@" <"$T/in" >"$T/out" 2>"$T/err" &
	pid=$!
	exec 7>"$T/in"
}

# answers_at_least N: waits (10 s at most) for N answer lines.
answers_at_least() {
	local i
	for i in $(seq 1 200); do
		[ "$(wc -l <"$T/out")" -ge "$1" ] && return 0
		sleep 0.05
	done
	echo "$(wc -l <"$T/out") answers, not $1" >&2
	return 1
}

@test "a server killed mid-run: one warning, and every answer" {
	started_on_fifo
	head -n 1 "$DATA/easy9.txt" >&7
	answers_at_least 1
	kill -9 "$REDIS_PID"
	wait "$REDIS_PID" || true
	REDIS_PID=
	tail -n +2 "$DATA/easy9.txt" >&7
	exec 7>&-
	wait "$pid"
	assert_equal "$(cat "$T/out")" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(grep -c 'going on without the cache' "$T/err")" 1
	assert_equal "$(wc -l <"$T/err")" 1
	grep -q "cache: $U: connection lost" "$T/err"
}

@test "a server that falls silent is given up, and every answer comes" {
	started_on_fifo
	head -n 1 "$DATA/easy9.txt" >&7
	answers_at_least 1
	kill -STOP "$REDIS_PID"
	tail -n +2 "$DATA/easy9.txt" >&7
	exec 7>&-
	wait "$pid"
	assert_equal "$(cat "$T/out")" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(cat "$T/err")" \
		"sudoku-race: cache: $U: no answer for 2 s; going on without the cache"
}

@test "SUDOKU_RACE_CACHE names the cache; --cache and --no-cache override it" {
	SUDOKU_RACE_CACHE=$U run sudoku-race "$DATA/easy9.txt"
	assert_success
	assert_equal "$(entry_keys | wc -l)" 3
	[ ! -e "$XDG_CACHE_HOME" ]
	rcli flushall >/dev/null
	SUDOKU_RACE_CACHE=$U run sudoku-race --cache "$T/dir" "$DATA/easy9.txt"
	assert_success
	[ -f "$T/dir/data.mdb" ]
	SUDOKU_RACE_CACHE=$U run sudoku-race --no-cache "$DATA/easy9.txt"
	assert_success
	assert_equal "$(rcli dbsize)" 0
	# a directory too
	SUDOKU_RACE_CACHE=$T/envdir run sudoku-race "$DATA/easy9.txt"
	assert_success
	[ -f "$T/envdir/data.mdb" ]
}

@test "a malformed redis:// URL is a usage error that names it" {
	for url in redis:// redis://host:0 redis://host:65536 redis://host:port redis://host/db \
		redis://host:6379/0/x 'redis://[::1' 'redis://host?required=2' 'redis://host?ttl=1' \
		redis://host#x; do
		run --separate-stderr sudoku-race --cache "$url" "$DATA/easy9.txt"
		assert_failure 2
		[[ $stderr == "sudoku-race: --cache: '$url': "* ]]
		[[ $stderr == *"Try 'sudoku-race --help' for more information."* ]]
	done
	# a password is never shown
	for url in redis://:@host redis://user:@host 'redis://:se%4@host' 'redis://:se%00@host'; do
		run --separate-stderr sudoku-race --cache "$url" "$DATA/easy9.txt"
		assert_failure 2
		[[ $stderr == "sudoku-race: --cache: 'redis://"*":***@host': "* ]]
		[[ $stderr != *se%* ]]
	done
	SUDOKU_RACE_CACHE=redis://host:x run --separate-stderr sudoku-race "$DATA/easy9.txt"
	assert_failure 2
	[[ $stderr == "sudoku-race: SUDOKU_RACE_CACHE: 'redis://host:x': the port is not a number from 1 to 65535"* ]]
}

# --- passwords, and a cache that must be there (issue 28) ---

@test "a password: in the URL (percent-encoded, with a user or not), or in REDISCLI_AUTH; the URL's wins" {
	stop_redis
	PASS='p@ss:w/rd %x'
	start_redis --requirepass "$PASS"
	enc='p%40ss%3Aw%2Frd%20%25x'
	A=redis://:$enc@127.0.0.1:$PORT
	run --separate-stderr sudoku-race --cache "$A" --stats "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(grep 'going on without' <<<"$stderr")" ""
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 3 misses, 0 bad entries dropped, 3 written"
	# the password is not shown
	[[ $stderr == *"sudoku-race: cache: redis://:***@127.0.0.1:$PORT: 3 puzzles claimed"* ]]
	assert_equal "$(entry_keys | wc -l)" 3
	# Redis 6's users: USER:PASSWORD, here the default user's; a database
	run --separate-stderr sudoku-race --cache "redis://default:$enc@127.0.0.1:$PORT/2" --stats "$DATA/easy9.txt"
	assert_success
	[[ $stderr == *"sudoku-race: cache: redis://default:***@127.0.0.1:$PORT/2: 3 puzzles claimed"* ]]
	assert_equal "$(rcli -n 2 dbsize)" 3
	# REDISCLI_AUTH, as redis-cli takes it
	REDISCLI_AUTH=$PASS run --separate-stderr sudoku-race --cache "$U" --stats "$DATA/easy9.txt"
	assert_success
	assert_equal "$(stat_line)" "sudoku-race: cache: 3 hits, 0 misses, 0 bad entries dropped, 0 written"
	# the URL's password before the environment's
	REDISCLI_AUTH=wrong run --separate-stderr sudoku-race --cache "$A" --stats "$DATA/easy9.txt"
	assert_success
	assert_equal "$(stat_line)" "sudoku-race: cache: 3 hits, 0 misses, 0 bad entries dropped, 0 written"
	# the cache commands
	run sudoku-race --cache "$A" cache stats
	assert_success
	assert_output "cache: redis://:***@127.0.0.1:$PORT
entries: 3
claims: 0 (racers running: 0)"
	REDISCLI_AUTH=$PASS run sudoku-race --cache "$U/2" cache clear
	assert_success
	assert_output "cache: $U/2: 3 entries cleared"
	# contrib/many-machines.sh: REDISCLI_AUTH to every racer; a quote in the URL's password
	echo 2/: >"$T/hosts"
	cp "$DATA/easy9.txt" "$T/in"
	REDISCLI_AUTH=$PASS run --separate-stderr "$top_srcdir/contrib/many-machines.sh" -S "$T/hosts" \
		--cache "$U/3?required=1" -n 2 "$T/in"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$(rcli -n 3 dbsize)" 3
	run --separate-stderr "$top_srcdir/contrib/many-machines.sh" --cache "redis://:it's wrong@127.0.0.1:$PORT/3?required=1" \
		-n 2 "$T/in"
	assert_failure 2
	assert_output ""
	[[ $stderr == *"sudoku-race: cache: redis://:***@127.0.0.1:$PORT/3?required=1: the server refused the password"* ]]
	# a password that a server without one is given does no harm
	stop_redis
	PASS=
	start_redis
	run --separate-stderr sudoku-race --cache "redis://:unneeded@127.0.0.1:$PORT" --cache-required "$DATA/easy9.txt"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(entry_keys | wc -l)" 3
}

@test "a wrong password, or none where one is needed: a warning that says so; with --cache-required, exit 2" {
	stop_redis
	PASS=secret
	start_redis --requirepass "$PASS"
	W=redis://:wrong@127.0.0.1:$PORT
	run --separate-stderr sudoku-race --cache "$W" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$stderr" "sudoku-race: cache: redis://:***@127.0.0.1:$PORT: the server refused the password: \
WRONGPASS invalid username-password pair or user is disabled.; going on without the cache"
	run --separate-stderr sudoku-race --cache "$U" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$stderr" "sudoku-race: cache: $U: the server needs a password (NOAUTH Authentication \
required.): give it in the URL (redis://:PASSWORD@HOST) or in REDISCLI_AUTH; going on without the cache"
	assert_equal "$(rcli dbsize)" 0
	# --cache-required: an error before the first puzzle, no answer
	run --separate-stderr sudoku-race --cache "$W" --cache-required "$DATA/easy9.txt"
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "sudoku-race: cache: redis://:***@127.0.0.1:$PORT: the server refused the password: \
WRONGPASS invalid username-password pair or user is disabled. (--cache-required)"
	REDISCLI_AUTH=wrong run --separate-stderr sudoku-race --cache "$U?required=1" "$DATA/easy9.txt"
	assert_failure 2
	assert_output ""
	[[ $stderr == "sudoku-race: cache: $U?required=1: the server refused the password: WRONGPASS"* ]]
	run --separate-stderr sudoku-race --cache "$U" --cache-required "$DATA/easy9.txt"
	assert_failure 2
	assert_output ""
	[[ $stderr == "sudoku-race: cache: $U: the server needs a password (NOAUTH"*"(--cache-required)" ]]
	# the cache commands
	run --separate-stderr sudoku-race --cache "$W" cache stats
	assert_failure 2
	[[ $stderr == "sudoku-race: cache: redis://:***@127.0.0.1:$PORT: the server refused the password: WRONGPASS"* ]]
	run --separate-stderr sudoku-race --cache "$U" cache clear
	assert_failure 2
	[[ $stderr == "sudoku-race: cache: $U: the server needs a password (NOAUTH"* ]]
	assert_equal "$(rcli dbsize)" 0
}

@test "--cache-required: a server that cannot be reached is an error at the start, exit 2" {
	stop_redis # the port is closed now
	run --separate-stderr sudoku-race --cache "$U" --cache-required "$DATA/easy9.txt"
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "sudoku-race: cache: $U: cannot connect: Connection refused (--cache-required)"
	# the same as the URL's option, from SUDOKU_RACE_CACHE too
	SUDOKU_RACE_CACHE="$U/1?required=1" run --separate-stderr sudoku-race "$DATA/easy9.txt"
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "sudoku-race: cache: $U/1?required=1: cannot connect: Connection refused (--cache-required)"
	# ?required=0 leaves it a warning
	run --separate-stderr sudoku-race --cache "$U?required=0" "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	[[ $stderr == *"cannot connect: Connection refused; going on without the cache" ]]
	# a server that takes the connection and says nothing: 2 s, then the error
	start_redis
	kill -STOP "$REDIS_PID"
	run --separate-stderr sudoku-race --cache "$U" --cache-required "$DATA/easy9.txt"
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "sudoku-race: cache: $U: no answer for 2 s (--cache-required)"
	stop_redis
	# a server that is up: the same run goes on as without the option
	start_redis
	run --separate-stderr sudoku-race --cache "$U" --cache-required "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	assert_equal "$stderr" ""
	assert_equal "$(entry_keys | wc -l)" 3
	run --separate-stderr sudoku-race --cache "$U" --cache-required --no-cache "$DATA/easy9.txt"
	assert_failure 2
}

@test "cache stats and clear on a redis:// cache" {
	sudoku-race --cache "$U" "$DATA/easy9.txt" >/dev/null
	run sudoku-race --cache "$U" cache stats
	assert_success
	assert_output "cache: $U
entries: 3
claims: 0 (racers running: 0)"
	run sudoku-race --cache "$U" --json cache stats
	assert_success
	assert_output "{\"cache\":\"$U\",\"exists\":true,\"entries\":3,\"claims\":0,\"racers\":0}"
	run sudoku-race --cache "$U" cache clear
	assert_success
	assert_output "cache: $U: 3 entries cleared"
	assert_equal "$(rcli dbsize)" 0
	run --separate-stderr sudoku-race --cache "$U" cache export
	assert_failure 2
	[[ $stderr == *"only 'cache stats' and 'cache clear' take a redis:// cache"* ]]
}

@test "contrib/many-machines.sh: blocks over racers sharing the cache, in order, the input's line numbers; -r resumes" {
	{
		cat "$DATA/easy9.txt"
		echo 12345
		grep -v '^#' "$top_srcdir/puzzles/acs-logic-solvable.txt" | grep . | head -n 8
	} >"$T/in"
	echo 2/: >"$T/hosts" # two racers on this machine, as on a host of the file
	recipe() { # recipe [OPTION]... [-- RACER-ARGS...]
		local opts=()
		while [ $# -gt 0 ] && [ "$1" != -- ]; do
			opts+=("$1")
			shift
		done
		"$top_srcdir/contrib/many-machines.sh" -S "$T/hosts" -c "$U" -n 5 "${opts[@]}" "$T/in" "$@"
	}
	run --separate-stderr recipe
	assert_failure 1 # line 4 is not a puzzle
	assert_equal "${#lines[@]}" 12
	assert_equal "${lines[3]}" "# invalid: line 4: 5 cells, expected 16"
	echo "$output" >"$T/first"
	run verify "$T/in" "$T/first"
	assert_success
	assert_output --partial "11 ok, 1 none, 0 wrong"
	assert_equal "$(entry_keys | wc -l)" 11
	# a run cut short after blocks 1 and 3: -r runs block 2 alone
	sed -i '/^2\t/d' "$T/in.run/joblog"
	rm "$T/in.run/out/2"
	run --separate-stderr recipe -r
	assert_failure 1
	assert_equal "$output" "$(cat "$T/first")"
	assert_equal "$(cut -f1 "$T/in.run/joblog" | tail -n +2 | tr '\n' ' ')" "1 3 2 "
	# a block that was not run is said so
	rm "$T/in.run/out/3"
	sed -i '/^3\t/d' "$T/in.run/joblog"
	run --separate-stderr recipe -r -x /nonexistent/sudoku-race
	assert_failure 2
	[[ $stderr == *"/nonexistent/sudoku-race"* ]]
	# a fresh run: the third block's racer numbers its lines from 11
	run --separate-stderr recipe -- --json
	[[ ${lines[10]} == '{"line":11,'*'"cache":true'* ]]
}

# --- what a shared cache may and may not say (issue 29) ---

# forge KEY LUA: the entry under KEY rewritten by a Lua expression of v,
# its value
forge() {
	rcli eval "local v = redis.call('GET', KEYS[1]) redis.call('SET', KEYS[1], $2)" 1 "$1" >/dev/null
}

@test "an unsat from the server is not taken on its word: the puzzle is raced" {
	head -n 1 "$DATA/easy9.txt" >"$T/p"
	sudoku-race --cache "$U" "$T/p" >/dev/null
	K=$(entry_keys)
	# an unsat entry, provers "x,y", as format 3 packs it
	# (racer/cache_value.h): the header, the names, the puzzle's cells
	perl -e '
		my @p = map { $_ eq "." ? 0 : $_ } split //, $ARGV[0];
		push @p, 0;
		print "\x03\x02\x00\x03", "\0" x 12, "\x02\x05\x03", "cp", "0.1.0", "x,y",
			map { chr($p[2 * $_] | $p[2 * $_ + 1] << 4) } 0 .. 40;' "$(cat "$T/p")" |
		rcli -x set "$K" >/dev/null
	[ "$(rcli strlen "$K")" -eq 70 ]
	run --separate-stderr sudoku-race --cache "$U" --json --stats "$T/p"
	assert_success
	[[ $output == *'"status":"solved"'*'"cache":false'* ]]
	assert_equal "$(stat_line)" "sudoku-race: cache: 0 hits, 1 misses, 0 bad entries dropped, 1 written"
	# the puzzle's own verdict replaced it
	run --separate-stderr sudoku-race --cache "$U" --json "$T/p"
	[[ $output == *'"status":"solved"'*'"cache":true'* ]]
}

@test "a uniqueness from the server is not taken on its word: --count counts" {
	printf '%081d\n' 0 | tr 0 . >"$T/empty"
	run --separate-stderr sudoku-race --cache "$U" --count --workers cp,dlx "$T/empty"
	assert_output "# multiple solutions: at least 2"
	K=$(entry_keys)
	forge "$K" "v:sub(1, 2) .. '\\1' .. v:sub(4)" # "unique"
	run --separate-stderr sudoku-race --cache "$U" --count --workers cp,dlx "$T/empty"
	assert_failure 1
	assert_output "# multiple solutions: at least 2"
	# without --count its solution is a hit, verified, its uniqueness not known
	forge "$K" "v:sub(1, 2) .. '\\1' .. v:sub(4)"
	run --separate-stderr sudoku-race --cache "$U" --json "$T/empty"
	assert_success
	[[ $output == *'"unique":null'*'"cache":true'* ]]
}

@test "another puzzle's entry under a puzzle's key (a replay) is refused" {
	head -n 2 "$DATA/easy9.txt" >"$T/p"
	sudoku-race --cache "$U" "$T/p" >/dev/null
	keys=($(entry_keys))
	# the first key's value under the second key too
	rcli eval "redis.call('SET', KEYS[2], redis.call('GET', KEYS[1]))" 2 "${keys[0]}" "${keys[1]}" >/dev/null
	run --separate-stderr sudoku-race --cache "$U" --stats "$T/p"
	assert_success
	assert_equal "$output" "$(head -n 2 "$DATA/easy9.solutions")"
	[[ $stderr == *"(it is the entry of another puzzle): dropped, the puzzle is raced"* ]]
	assert_equal "$(stat_line)" "sudoku-race: cache: 1 hits, 0 misses, 1 bad entries dropped, 1 written"
}

@test "a key of another type costs that key alone, not the cache" {
	sudoku-race --cache "$U" "$DATA/easy9.txt" >/dev/null
	keys=($(entry_keys))
	rcli del "${keys[0]}" >/dev/null
	rcli hset "${keys[0]}" not an-entry >/dev/null
	# a claim of another type, too
	rcli del "${keys[1]}" >/dev/null
	rcli hset "sudoku-race:claim:${keys[1]#sudoku-race:}" not a-claim >/dev/null
	run --separate-stderr sudoku-race --cache "$U" --stats "$DATA/easy9.txt"
	assert_success
	assert_equal "$output" "$(cat "$DATA/easy9.solutions")"
	refute [ -n "$(grep 'going on without the cache' <<<"$stderr")" ]
	[[ $stderr == *"(a key of another type than a string): dropped, the puzzle is raced"* ]]
	assert_equal "$(stat_line)" "sudoku-race: cache: 1 hits, 1 misses, 1 bad entries dropped, 2 written"
	assert_equal "$(rcli type "${keys[0]}")" string
	run --separate-stderr sudoku-race --cache "$U" --stats "$DATA/easy9.txt"
	assert_equal "$(stat_line)" "sudoku-race: cache: 3 hits, 0 misses, 0 bad entries dropped, 0 written"
}

@test "a huge value is refused as bad, never loaded whole" {
	head -n 1 "$DATA/easy9.txt" >"$T/p"
	sudoku-race --cache "$U" "$T/p" >/dev/null
	K=$(entry_keys)
	rcli setrange "$K" $((64 << 20)) x >/dev/null # 64 MB
	started_on_fifo --stats
	cat "$T/p" >&7
	answers_at_least 1
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
	exec 7>&-
	wait "$pid"
	assert_equal "$(cat "$T/out")" "$(head -n 1 "$DATA/easy9.solutions")"
	grep -q "(a value over 8288 bytes): dropped, the puzzle is raced" "$T/err"
	# its own entry again: some 80 bytes
	[ "$(rcli strlen "$K")" -lt 128 ]
	if [ -z "${SUDOKU_RACE_WRAP:-}" ] && ! ldd "$(type -P sudoku-race)" | grep -q libasan; then
		echo "the racer's peak: $hwm kB"
		[ "$hwm" -lt 32768 ]
	fi
}
