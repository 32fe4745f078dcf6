/* Unit tests: the answer codec (lib/answer.h): every text line, the
 * pretty grid, the JSON object (a lone worker's keys and the racer's),
 * JSON strings (escapes, UTF-8), and the reader of the lines. */
#include "config.h"

#include <stdlib.h>

#include "lib/answer.h"
#include "tap.h"

static struct answer_buf out;

static const char *text(const struct answer *a, bool pretty)
{
	out.len = 0;
	if (answer_write_text(&out, a, pretty) < 0)
		return "(failed)";
	return out.p;
}

static const char *json(const struct answer *a)
{
	out.len = 0;
	if (answer_write_json(&out, a) < 0)
		return "(failed)";
	return out.p;
}

static const char *json_str(const char *s)
{
	out.len = 0;
	if (answer_write_json_string(&out, s) < 0)
		return "(failed)";
	return out.p;
}

/* The line's own kind read back, and what it read. */
static struct answer_read reread(const char *line)
{
	struct answer_read r;
	if (answer_parse(line, strlen(line), &r) < 0)
		r.kind = (enum answer_kind)-1;
	return r;
}

static union grid_room puzzle_room;
static union grid_room solution_room;
static struct grid *puzzle = &puzzle_room.grid, *solution = &solution_room.grid;
static struct notation nt;

static struct answer base(enum answer_kind kind)
{
	return (struct answer){
		.kind = kind,
		.line = 3,
		.puzzle = puzzle,
		.nt = &nt,
		.count_limit = 0,
	};
}

static void test_text(void)
{
	struct answer a = base(ANSWER_SOLVED);
	a.solution = solution;
	is_str(text(&a, false), "1234341221434321\n", "a solution, in the puzzle's notation");
	ok(!answer_failed(&a), "is not a failure");
	struct answer_read r = reread(out.p);
	ok(r.kind == ANSWER_SOLVED && r.len == 16 && strncmp(r.text, "1234341221434321", 16) == 0,
	   "and reads back as one");
	is_str(text(&a, true),
	       "+-----+-----+\n"
	       "| 1 2 | 3 4 |\n"
	       "| 3 4 | 1 2 |\n"
	       "+-----+-----+\n"
	       "| 2 1 | 4 3 |\n"
	       "| 4 3 | 2 1 |\n"
	       "+-----+-----+\n",
	       "--pretty: a boxed grid");
	struct notation numbers = {.style = NOTATION_NUMBERS, .minus_one = true};
	a.nt = &numbers;
	is_str(text(&a, false), "1 2 3 4 3 4 1 2 2 1 4 3 4 3 2 1\n", "numbers where the input used numbers");
	a.nt = &nt;
	a.solution = NULL;
	is_str(text(&a, false), "\n", "no solution to write: an empty line, still one line");

	a = base(ANSWER_UNSAT);
	is_str(text(&a, false), "# unsat\n", "unsat");
	is_str(text(&a, true), "# unsat\n", "the same with --pretty");
	ok(answer_failed(&a), "is a failure");
	ok(reread(out.p).kind == ANSWER_UNSAT, "reads back");

	a = base(ANSWER_CLASH);
	a.note = "line 3: value 1 twice in row 1";
	is_str(text(&a, false), "# unsat: line 3: value 1 twice in row 1\n", "givens that clash");
	r = reread(out.p);
	ok(r.kind == ANSWER_CLASH && r.len == strlen(a.note) && strncmp(r.text, a.note, r.len) == 0,
	   "reads back, its note");
	a.file = "in.txt";
	is_str(text(&a, false), "# unsat: in.txt: line 3: value 1 twice in row 1\n", "the file named");

	a = base(ANSWER_INVALID);
	a.puzzle = NULL;
	a.note = "line 3: 80 cells, expected 81";
	is_str(text(&a, false), "# invalid: line 3: 80 cells, expected 81\n", "invalid");
	ok(reread(out.p).kind == ANSWER_INVALID, "reads back");
	a.file = "x.txt";
	is_str(text(&a, false), "# invalid: x.txt: line 3: 80 cells, expected 81\n", "invalid, the file named");

	a = base(ANSWER_UNSUPPORTED);
	a.note = "line 3: no available worker takes 64x64 grids";
	is_str(text(&a, false), "# unsupported: line 3: no available worker takes 64x64 grids\n", "unsupported");
	ok(reread(out.p).kind == ANSWER_UNSUPPORTED, "reads back");

	a = base(ANSWER_MULTIPLE);
	a.solution = solution;
	a.count = 2;
	a.count_limit = 2;
	is_str(text(&a, false), "# multiple solutions: at least 2\n", "multiple, as many as asked: at least");
	r = reread(out.p);
	ok(r.kind == ANSWER_MULTIPLE && r.count == 2 && r.at_least, "reads back: at least 2");
	a.count = 27;
	a.count_limit = 1000;
	is_str(text(&a, false), "# multiple solutions: 27\n", "fewer than asked: the exact count");
	r = reread(out.p);
	ok(r.kind == ANSWER_MULTIPLE && r.count == 27 && !r.at_least, "reads back: 27");
	ok(answer_failed(&a), "is a failure");

	a = base(ANSWER_UNSOLVED);
	is_str(text(&a, false), "# unsolved\n", "unsolved");
	ok(reread(out.p).kind == ANSWER_UNSOLVED, "reads back");

	a = base(ANSWER_TIMEOUT);
	a.seconds = 10;
	is_str(text(&a, false), "# timeout after 10 s\n", "timeout");
	r = reread(out.p);
	ok(r.kind == ANSWER_TIMEOUT && r.seconds == 10, "reads back, its seconds");
	a.seconds = 0.25;
	is_str(text(&a, false), "# timeout after 0.25 s\n", "a fraction of a second, as %%g writes it");
	a.kind = ANSWER_GAVEUP_AFTER;
	a.seconds = 1.5;
	is_str(text(&a, false), "# gave up after 1.5 s\n", "a stochastic worker's time limit");
	r = reread(out.p);
	ok(r.kind == ANSWER_GAVEUP_AFTER && r.seconds == 1.5, "reads back");

	a = base(ANSWER_GAVEUP);
	a.note = "iterations";
	is_str(text(&a, false), "# gave up: iterations\n", "gave up, why");
	ok(reread(out.p).kind == ANSWER_GAVEUP, "reads back");
	a.note = "";
	is_str(text(&a, false), "# gave up: no solution found\n", "gave up, nothing said");
	a.note = NULL;
	is_str(text(&a, false), "# gave up: no solution found\n", "gave up, no note");

	a = base(ANSWER_WRONG);
	a.note = "cp gave a wrong answer (row 1 has 2 twice)";
	is_str(text(&a, false), "# error: cp gave a wrong answer (row 1 has 2 twice)\n", "a wrong answer");
	ok(reread(out.p).kind == ANSWER_WRONG, "reads back");

	/* the reader: what is not an answer line */
	struct answer_read rr;
	ok(answer_parse("", 0, &rr) < 0, "an empty line is no answer");
	ok(answer_parse("\n", 1, &rr) < 0, "nor a line of its LF alone");
	ok(answer_parse("# a comment", 11, &rr) < 0, "nor a comment");
	ok(answer_parse("#unsat", 6, &rr) < 0, "nor '#unsat'");
	ok(answer_parse("# unsatisfied", 13, &rr) < 0, "nor '# unsatisfied'");
	ok(answer_parse("# multiple solutions: x", 23, &rr) < 0, "nor a count that is not one");
	ok(answer_parse("# multiple solutions", 20, &rr) == 0 && rr.kind == ANSWER_MULTIPLE && rr.count == 0,
	   "'# multiple solutions' alone is read");
	ok(answer_parse("# timeout after s", 17, &rr) < 0, "nor a timeout without seconds");
	ok(answer_parse("# unsat\r\n", 9, &rr) == 0 && rr.kind == ANSWER_UNSAT, "CR LF ends a line");
	ok(answer_parse("1234341221434321\n", 17, &rr) == 0 && rr.len == 16, "a solution's LF is not its text");
}

static void test_json(void)
{
	/* a lone worker's keys (its filter mode) */
	struct answer a = base(ANSWER_SOLVED);
	a.solution = solution;
	a.file = "easy.txt";
	a.winner = "cp";
	a.worker_ms = a.ms = 0.0234;
	is_str(json(&a),
	       "{\"line\":3,\"file\":\"easy.txt\",\"puzzle\":\"1.3..4.2.1..3..1\",\"status\":\"solved\","
	       "\"solution\":\"1234341221434321\",\"reason\":null,\"unique\":null,\"winner\":\"cp\","
	       "\"worker_ms\":0.023,\"ms\":0.023}\n",
	       "solved, a worker's keys");
	a.unique = ANSWER_UNIQUE_YES;
	a.file = NULL;
	ok(strstr(json(&a), "\"unique\":true,") && !strstr(out.p, "\"file\""), "unique true; no file for stdin");

	a = base(ANSWER_INVALID);
	a.puzzle = NULL;
	a.note = "line 3: 80 cells, expected 81";
	a.file = "easy.txt";
	is_str(json(&a),
	       "{\"line\":3,\"file\":\"easy.txt\",\"status\":\"invalid\",\"solution\":null,"
	       "\"reason\":\"line 3: 80 cells, expected 81\",\"winner\":null,\"worker_ms\":0.000,\"ms\":0.000}\n",
	       "invalid: no puzzle, the reason without the file");

	a = base(ANSWER_MULTIPLE);
	a.solution = solution;
	a.count = 2;
	a.count_limit = 2;
	a.unique = ANSWER_UNIQUE_NO;
	a.winner = "cp";
	ok(strstr(json(&a), "\"status\":\"multiple\",\"solution\":\"1234341221434321\","
			    "\"reason\":\"multiple solutions: at least 2\",\"unique\":false,\"winner\":\"cp\"") != NULL,
	   "multiple: one solution, the reason, unique false");
	ok(!strstr(out.p, "\"count\""), "a lone worker writes no count");

	const struct {
		enum answer_kind kind;
		const char *status, *reason;
	} plain[] = {
		{ANSWER_UNSAT, "unsat", "\"unsat\""},
		{ANSWER_UNSOLVED, "unsolved", "\"unsolved\""},
		{ANSWER_GAVEUP, "unsolved", "\"gave up: x\""},
		{ANSWER_WRONG, "unsolved", "\"error: x\""},
		{ANSWER_TIMEOUT, "timeout", "\"timeout after 2 s\""},
		{ANSWER_GAVEUP_AFTER, "timeout", "\"gave up after 2 s\""},
		{ANSWER_CLASH, "unsat", "\"x\""},
		{ANSWER_UNSUPPORTED, "unsupported", "\"x\""},
	};
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
		a = base(plain[i].kind);
		a.note = "x";
		a.seconds = 2;
		a.file = "f";
		char want[160];
		snprintf(want, sizeof want, "\"status\":\"%s\",\"solution\":null,\"reason\":%s,\"winner\":null,",
			 plain[i].status, plain[i].reason);
		ok(strstr(json(&a), want) != NULL, "status %s, reason %s", plain[i].status, plain[i].reason);
		ok(!strstr(out.p, "unique") && !strstr(out.p, "confirmed"), "no unique, no confirmed");
		is_str(answer_status(plain[i].kind), plain[i].status, "answer_status says %s", plain[i].status);
	}

	/* the racer's keys */
	const struct answer_attempt workers[] = {
		{"cp", "won", 0.05},
		{"dlx#2", "cancelled", 0},
	};
	const struct answer_race race = {.cache = false, .stage = "presolver", .workers = workers, .nworkers = 2};
	a = base(ANSWER_SOLVED);
	a.solution = solution;
	a.winner = "cp";
	a.worker_ms = 0.05;
	a.ms = 0.3;
	a.race = &race;
	is_str(json(&a),
	       "{\"line\":3,\"puzzle\":\"1.3..4.2.1..3..1\",\"status\":\"solved\",\"solution\":\"1234341221434321\","
	       "\"reason\":null,\"unique\":null,\"winner\":\"cp\",\"worker_ms\":0.050,\"ms\":0.300,\"cache\":false,"
	       "\"stage\":\"presolver\",\"workers\":[{\"worker\":\"cp\",\"outcome\":\"won\",\"ms\":0.050},"
	       "{\"worker\":\"dlx#2\",\"outcome\":\"cancelled\"}]}\n",
	       "the racer's keys, in docs/json.md's order");
	const struct answer_race counted = {.counted = true, .confirmed = true, .provers = "cp+dlx", .stage = "all"};
	a.race = &counted;
	a.count = 1;
	a.count_limit = 2;
	a.unique = ANSWER_UNIQUE_YES;
	ok(strstr(json(&a), "\"unique\":true,\"count\":1,\"count_limit\":2,\"confirmed\":true,"
			    "\"provers\":\"cp+dlx\",\"winner\":\"cp\"") != NULL,
	   "--count: count, count_limit, confirmed, provers");
	const struct answer_race unconfirmed = {.counted = true, .provers = "", .stage = "all"};
	a.race = &unconfirmed;
	a.kind = ANSWER_UNSAT;
	a.solution = NULL;
	a.count = 0;
	ok(strstr(json(&a), "\"reason\":\"unsat\",\"count\":0,\"count_limit\":2,\"confirmed\":false,"
			    "\"provers\":null,") != NULL,
	   "unsat counted, unconfirmed: provers null");
	const struct answer_race uncounted = {.stage = "all"};
	a.race = &uncounted;
	ok(strstr(json(&a), "\"reason\":\"unsat\",\"confirmed\":false,\"provers\":null,") != NULL,
	   "unsat without --count: confirmed and provers only");
	a.kind = ANSWER_SOLVED;
	a.solution = solution;
	ok(!strstr(json(&a), "confirmed"), "a solution without --count needs no proof");
	const struct answer_race cached = {.cache = true, .stage = "none"};
	a.race = &cached;
	a.kind = ANSWER_UNSOLVED;
	a.solution = NULL;
	ok(strstr(json(&a), "\"cache\":true,\"stage\":\"none\",\"workers\":[]}\n") != NULL, "no workers: []");

	/* every object is valid JSON by construction: keys and strings quoted */
	a = base(ANSWER_CLASH);
	a.note = "line 3: \"quoted\" \\ and\ta tab";
	a.file = "caf\xe9.txt";
	a.winner = "w\x01";
	ok(strstr(json(&a), "\"file\":\"caf\\ufffd.txt\"") != NULL, "a Latin-1 file name: U+FFFD, escaped");
	ok(strstr(out.p, "\"reason\":\"line 3: \\\"quoted\\\" \\\\ and\\u0009a tab\"") != NULL,
	   "quotes, backslashes and tabs escaped");
	ok(strstr(out.p, "\"winner\":\"w\\u0001\"") != NULL, "a control character as \\u00XX");
}

static void test_strings(void)
{
	is_str(json_str("plain"), "\"plain\"", "ASCII as is");
	is_str(json_str(""), "\"\"", "empty");
	is_str(json_str("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"", "quote and backslash escaped, '/' not");
	is_str(json_str("\n\r\x1f\x7f"), "\"\\u000a\\u000d\\u001f\x7f\"", "control characters escaped, DEL valid");
	is_str(json_str("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
	       "valid UTF-8 of 2, 3 and 4 bytes as is");
	is_str(json_str("caf\xe9"), "\"caf\\ufffd\"", "a Latin-1 byte at the end: U+FFFD");
	is_str(json_str("caf\xe9.txt"), "\"caf\\ufffd.txt\"", "a Latin-1 byte before ASCII: U+FFFD");
	is_str(json_str("\x80"), "\"\\ufffd\"", "a lone continuation byte");
	is_str(json_str("\xc0\xaf"), "\"\\ufffd\\ufffd\"", "an overlong '/' (C0 AF): two");
	is_str(json_str("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\"", "an overlong of 3 bytes: three");
	is_str(json_str("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"", "a surrogate: three");
	is_str(json_str("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "past U+10FFFF: four");
	is_str(json_str("\xf5\x80"), "\"\\ufffd\\ufffd\"", "F5: never a lead byte");
	is_str(json_str("\xe2\x82"), "\"\\ufffd\"", "a sequence cut short at the end: one");
	is_str(json_str("\xe2\x82x"), "\"\\ufffd" "x\"", "cut short before ASCII: one, then the ASCII");
	is_str(json_str("\xf0\x9f\x98"), "\"\\ufffd\"", "a 4-byte sequence cut short: one");
	is_str(json_str("\xef\xbf\xbd"), "\"\xef\xbf\xbd\"", "U+FFFD itself is valid");
	is_str(json_str("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"", "U+10FFFF is valid");
	is_str(json_str("\xfe\xff"), "\"\\ufffd\\ufffd\"", "FE FF: two");
	/* long strings grow the buffer */
	static char big[20000];
	memset(big, '\xe9', sizeof big - 1);
	ok(json_str(big) && out.len == 2 + 6 * (sizeof big - 1), "a long run of bad bytes, each U+FFFD");
}

int main(void)
{
	grid_init(puzzle, 2);
	grid_init(solution, 2);
	notation_default(&nt, 4);
	const char *p = "1.3..4.2.1..3..1", *s = "1234341221434321";
	for (int i = 0; i < 16; i++) {
		puzzle->cell[i] = (uint8_t)(p[i] == '.' ? 0 : p[i] - '0');
		solution->cell[i] = (uint8_t)(s[i] - '0');
	}
	test_text();
	test_json();
	test_strings();
	answer_buf_free(&out);
	ok(out.p == NULL && out.len == 0, "the buffer freed");
	return tap_done();
}
