/* bench-codec: an in-process micro-benchmark of the codec's per-answer
 * paths, against the hand-written code they replace (copied here as it was
 * at ddd04c0): what the racer does for each worker answer (msg_parse, then
 * the id, ms= and a count's K), what it does to send a solve (encode once,
 * send with or without the seed), and an answer line written out. It times
 * the code alone, in one process, on one line at a time kept in cache: a
 * bound on what the change can cost, not a measure of a race (for that,
 * contrib/bench/bench-racer).
 *
 * Usage: contrib/bench/bench-codec [ROUNDS]   (built, never installed)
 * Prints, per path, the median over ROUNDS (default 15) of ns per call.
 * contrib/bench/bench-codec --calls PATH N runs one path N times, untimed,
 * for an instruction count: valgrind --tool=callgrind, N and 2N calls,
 * the difference over N. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/answer.h"
#include "lib/clock.h"
#include "protocol/message.h"

/* What the compiler must not see through. */
static volatile uint64_t sink;

/* --- the code replaced, as it was --- */

/* racer/proc.c */
static bool parse_seq(const char *id, uint64_t *seq)
{
	if (!id || !(*id >= '0' && *id <= '9'))
		return false;
	uint64_t v = 0;
	for (; *id >= '0' && *id <= '9'; id++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*id - '0');
	}
	if (*id)
		return false;
	*seq = v;
	return true;
}

/* racer/race.c */
static double parse_ms(const char *s)
{
	if (!s)
		return 0;
	double v = 0;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	if (*s == '.') {
		double scale = 1;
		for (s++; *s >= '0' && *s <= '9'; s++)
			v += (*s - '0') * (scale /= 10);
	}
	return v;
}

/* --- the paths timed --- */

static char line[PROTO_LINE_MAX];
static const char *answer;
static size_t answer_len;

/* The racer's read of an answer before: msg_parse, parse_seq, the ms field
 * by msg_field, parse_ms; for a count, strtoll; the grid's length (as
 * verify_answer took it; msg_reply has it). */
static void old_read(void)
{
	struct msg m;
	char err[128];
	memcpy(line, answer, answer_len + 1);
	if (msg_parse(line, answer_len, &m, err, sizeof err) < 0)
		abort();
	uint64_t seq = 0;
	if (!parse_seq(m.id, &seq))
		abort();
	double ms = parse_ms(msg_field(&m, "ms"));
	long long k = 0;
	if (m.type == MSG_COUNT) {
		char *end;
		k = strtoll(m.argv[0], &end, 10);
	}
	size_t len = strlen(m.argv[m.type == MSG_COUNT]);
	sink += seq + (uint64_t)(ms * 1000) + (uint64_t)k + len;
}

/* And now: msg_parse, msg_read_reply. */
static void new_read(void)
{
	struct msg m;
	struct msg_reply r;
	char err[128];
	memcpy(line, answer, answer_len + 1);
	if (msg_parse(line, answer_len, &m, err, sizeof err) < 0 || msg_read_reply(&m, &r, err, sizeof err) != MSG_READ_OK)
		abort();
	sink += r.id + (uint64_t)(r.ms * 1000) + (uint64_t)r.count + r.grid_len;
}

/* msg_parse alone: the floor both share. */
static void parse_only(void)
{
	struct msg m;
	char err[128];
	memcpy(line, answer, answer_len + 1);
	if (msg_parse(line, answer_len, &m, err, sizeof err) < 0)
		abort();
	sink += (uint64_t)(uintptr_t)m.argv[0];
}

static union grid_room puzzle_room;
static struct grid *puzzle = &puzzle_room.grid;
static const struct msg_solve_fields solve_fields = {.limit_ms = 10000, .has_seed = true, .seed = 7};
static char scratch[PROTO_LINE_MAX];

/* The racer's solve before: written into a kept scratch line, copied at its
 * length into the puzzle's 192 bytes, then sent to three entries, one of
 * them with its own seed (a length), and proc.c adding the LF. */
static void old_solve(void)
{
	static char small[192];
	size_t noseed_len;
	int n = msg_write_solve(scratch, PROTO_LINE_MAX, "12345", puzzle, &solve_fields, &noseed_len);
	if (n < 0 || (size_t)n >= sizeof small)
		abort();
	memcpy(small, scratch, (size_t)n + 1);
	for (int e = 0; e < 3; e++) {
		size_t len = e == 2 ? noseed_len : (size_t)n;
		sink += len + (uint8_t)small[len - 1];
		if (small[len - 1] != '\n')
			sink += 1; /* "\n" written after */
	}
}

/* And now: a record made, emitted three times. */
static void new_solve(void)
{
	static struct msg_solve_record rec;
	if (msg_solve_record_make(&rec, "12345", puzzle, &solve_fields) < 0)
		abort();
	for (int e = 0; e < 3; e++) {
		struct msg_span part[2];
		int k = msg_solve_emit(&rec, e != 2, part);
		for (int i = 0; i < k; i++)
			sink += part[i].len + (uint8_t)part[i].p[0];
	}
}

static union grid_room solution_room;
static struct grid *solution = &solution_room.grid;
static struct notation nt;

/* The racer's text answer before: grid_format into a kept buffer, an LF. */
static void old_text(void)
{
	static char fmt[8192];
	int n = grid_format(solution, &nt, fmt, sizeof fmt - 1);
	if (n < 0)
		abort();
	fmt[n++] = '\n';
	sink += (uint64_t)n + (uint8_t)fmt[0];
}

/* And now: the answer codec into a kept buffer. */
static void new_text(void)
{
	static struct answer_buf o;
	struct answer a = {.kind = ANSWER_SOLVED, .line = 7, .puzzle = puzzle, .nt = &nt, .solution = solution};
	o.len = 0;
	if (answer_write_text(&o, &a, false) < 0)
		abort();
	sink += o.len + (uint8_t)o.p[0];
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* ns per call of each of fn[0..k), the median of rounds rounds of n calls,
 * the functions taken in turns within each round (the machine's clock and
 * load move between rounds, not between the things compared). */
static void time_them(void (*const *fn)(void), int k, int rounds, int n, double *ns)
{
	double t[4][64];
	for (int j = 0; j < k; j++)
		for (int i = 0; i < n / 4; i++)
			fn[j]();
	for (int r = 0; r < rounds; r++)
		for (int j = 0; j < k; j++) {
			uint64_t t0 = now_ns();
			for (int i = 0; i < n; i++)
				fn[j]();
			t[j][r] = (double)(now_ns() - t0) / n;
		}
	for (int j = 0; j < k; j++) {
		qsort(t[j], (size_t)rounds, sizeof t[j][0], by_value);
		ns[j] = t[j][rounds / 2];
	}
}

int main(int argc, char **argv)
{
	/* --calls NAME N: NAME's path N times, untimed (to count its
	 * instructions under valgrind, which a loaded machine leaves exact) */
	const char *only = argc > 3 && strcmp(argv[1], "--calls") == 0 ? argv[2] : NULL;
	int rounds = only ? 1 : argc > 1 ? atoi(argv[1]) : 15;
	if (rounds < 1 || rounds > 64) {
		fprintf(stderr, "bench-codec: ROUNDS from 1 to 64\n");
		return 2;
	}
	const char *p = ".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7...";
	const char *s = "953168742862734951417952836746893125281645397395271468138529674574386219629417583";
	grid_init(puzzle, 3);
	grid_init(solution, 3);
	for (int i = 0; i < 81; i++) {
		puzzle->cell[i] = (uint8_t)(p[i] == '.' ? 0 : p[i] - '0');
		solution->cell[i] = (uint8_t)(s[i] - '0');
	}
	notation_default(&nt, 9);
	static char sol_line[256], count_line[256];
	snprintf(sol_line, sizeof sol_line, "solution 12345 %s nodes=15 ms=0.034", s);
	snprintf(count_line, sizeof count_line, "count 12345 1 %s nodes=15 ms=0.034", s);
	const int n = 200000;
	if (only) {
		const struct {
			const char *name;
			void (*fn)(void);
			const char *line;
		} paths[] = {
			{"old-solution", old_read, sol_line}, {"new-solution", new_read, sol_line},
			{"old-count", old_read, count_line},  {"new-count", new_read, count_line},
			{"parse-solution", parse_only, sol_line}, {"old-solve", old_solve, NULL},
			{"new-solve", new_solve, NULL},       {"old-text", old_text, NULL},
			{"new-text", new_text, NULL},
		};
		long calls = atol(argv[3]);
		for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
			if (strcmp(only, paths[i].name) == 0) {
				answer = paths[i].line;
				answer_len = answer ? strlen(answer) : 0;
				for (long c = 0; c < calls; c++)
					paths[i].fn();
				return 0;
			}
		fprintf(stderr, "bench-codec: no path %s\n", only);
		return 2;
	}
	printf("bench-codec: in-process micro-benchmark, ns per call, median of %d rounds of %d calls\n", rounds, n);
	printf("%-46s %8s %8s\n", "path", "before", "now");
	const struct {
		const char *name, *line;
	} reads[] = {{"a worker's solution: parse, id, ms=", sol_line}, {"a worker's count: parse, id, K, ms=", count_line}};
	double ns[3];
	for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
		answer = reads[i].line;
		answer_len = strlen(answer);
		time_them((void (*const[])(void)){old_read, new_read, parse_only}, 3, rounds, n, ns);
		printf("%-46s %8.1f %8.1f\n", reads[i].name, ns[0], ns[1]);
		printf("%-46s %8.1f %8.1f\n", "  of which msg_parse alone", ns[2], ns[2]);
	}
	time_them((void (*const[])(void)){old_solve, new_solve}, 2, rounds, n, ns);
	printf("%-46s %8.1f %8.1f\n", "a solve: encoded once, sent to three entries", ns[0], ns[1]);
	time_them((void (*const[])(void)){old_text, new_text}, 2, rounds, n, ns);
	printf("%-46s %8.1f %8.1f\n", "a 9x9 solution's text line", ns[0], ns[1]);
	return sink == 42 ? 1 : 0;
}
